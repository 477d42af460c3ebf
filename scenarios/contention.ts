/**
 * Many distinct users, one attempt each, all released at one barrier and then held again at `after-read`
 * until every client has read: the widest window a design can be given, on every run. The clients talk to
 * 3 nodes, which 40 units do not divide: a design that splits the stock per node must give the remainder
 * to some node (14 + 13 + 13), or it sells 39.
 */
import {
  defineScenario,
  distinctUserClients,
  firstSku,
  LAB_SKU,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';

export default defineScenario({
  id: 'contention',
  kind: 'clients',
  summary:
    'N clients with distinct users start at one barrier, held together at after-read; one attempt each',
  input: { clients: 150, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 3 },
  plan: (params) => ({ holdAt: 'after-read', clients: distinctUserClients(params) }),
  expect: {
    headline: true,
    outcomes(params) {
      const held = Math.min(firstSku(params).total, params.clients);
      return { HELD: held, SOLD_OUT: params.clients - held };
    },
  },
});
