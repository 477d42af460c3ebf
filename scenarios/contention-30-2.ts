/**
 * LabReserve's own contention test: 30 distinct users, one slot with 2 places, all released at
 * one barrier and held together at `after-read` until every client has read. Distinct users on purpose:
 * with one user, the one-active-hold rule alone would cap the holds at 1, and the test would measure the
 * per-user rule instead of the capacity.
 */
import {
  defineScenario,
  distinctUserClients,
  firstSku,
  LAB_SKU,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'contention-30-2',
  kind: 'clients',
  summary: 'LabReserve: 30 clients with distinct users for 2 places, held together at after-read',
  input: { clients: 30, stock: [{ sku: LAB_SKU, total: 2 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  plan: (params) => ({ holdAt: 'after-read', clients: distinctUserClients(params) }),
  expect: {
    outcomes(params) {
      const held = Math.min(firstSku(params).total, params.clients);
      return { HELD: held, SOLD_OUT: params.clients - held };
    },
  },
});
