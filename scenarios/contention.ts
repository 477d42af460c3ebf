/**
 * Many distinct users, one attempt each, all released at one barrier and then held again at `after-read`
 * until every client has read: the widest window a design can be given, on every run.
 */
import {
  defineScenario,
  distinctUserClients,
  firstSku,
  LAB_SKU,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'contention',
  kind: 'clients',
  summary:
    'N clients with distinct users start at one barrier, held together at after-read; one attempt each',
  input: { clients: 150, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0001', ttlMs: TTL_MS },
  plan: (params) => ({ holdAt: 'after-read', clients: distinctUserClients(params) }),
  expect: {
    headline: true,
    outcomes(params) {
      const held = Math.min(firstSku(params).total, params.clients);
      return { HELD: held, SOLD_OUT: params.clients - held };
    },
  },
});
