/**
 * Every client sends the same request at once: one reservation, the rest replays (the flash-sale lab's
 * duplicate-request run).
 */
import {
  defineScenario,
  firstSku,
  LAB_SKU,
  type OutcomeCounts,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'duplicate-key',
  kind: 'clients',
  summary: 'N clients send one request_key (same user, same sku) at one barrier',
  input: { clients: 16, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0042', ttlMs: TTL_MS, nodes: 2 },
  plan(params) {
    const request = {
      requestKey: 'req-dup',
      user: params.user,
      sku: firstSku(params).sku,
      ttlMs: params.ttlMs,
    };
    return { clients: Array.from({ length: params.clients }, (_, i) => ({ index: i, requests: [request] })) };
  },
  expect: {
    outcomes: (params): OutcomeCounts =>
      firstSku(params).total === 0 ? { SOLD_OUT: params.clients } : { HELD: 1, REPLAY: params.clients - 1 },
  },
});
