/**
 * One key reserved, then sent again by another user and for another sku: both are errors and write
 * nothing (the final read shows one active key and the second sku untouched).
 */
import {
  defineScenario,
  LAB_SKU,
  type OutcomeCounts,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';

export default defineScenario({
  id: 'key-reuse',
  kind: 'clients',
  summary: 'one request_key reserved, then resent with another user and with another sku',
  input: {
    clients: 1,
    stock: [
      { sku: LAB_SKU, total: 40 },
      { sku: 'sku-lab-02', total: 40 },
    ],
    user: 'user-0042',
    ttlMs: TTL_MS,
    nodes: 1,
  },
  plan(params) {
    const [first, second] = params.stock;
    if (!first || !second) throw new Error('key-reuse needs two skus');
    const key = 'req-reuse';
    return {
      clients: [
        {
          index: 0,
          requests: [
            { requestKey: key, user: params.user, sku: first.sku, ttlMs: params.ttlMs },
            { requestKey: key, user: 'user-0043', sku: first.sku, ttlMs: params.ttlMs },
            { requestKey: key, user: params.user, sku: second.sku, ttlMs: params.ttlMs },
          ],
        },
      ],
    };
  },
  expect: {
    outcomes: (params): OutcomeCounts =>
      params.stock[0]?.total === 0 ? { SOLD_OUT: 3 } : { HELD: 1, KEY_REUSED: 2 },
  },
});
