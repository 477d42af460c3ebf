/**
 * One user, N different keys at once: one active hold per user and sku (the flash-sale lab's same-user
 * run).
 */
import {
  defineScenario,
  exactly,
  firstSku,
  LAB_SKU,
  requestKey,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'user-limit',
  kind: 'clients',
  summary: 'N clients, one user, N different request_keys at one barrier',
  input: { clients: 8, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0042', ttlMs: TTL_MS, nodes: 2 },
  plan(params) {
    const sku = firstSku(params).sku;
    return {
      clients: Array.from({ length: params.clients }, (_, i) => ({
        index: i,
        requests: [{ requestKey: requestKey(i + 1), user: params.user, sku, ttlMs: params.ttlMs }],
      })),
    };
  },
  expect: {
    relations(params, { outcomes }) {
      const total = firstSku(params).total;
      if (total === 0) return exactly({ SOLD_OUT: params.clients }, outcomes);
      if (total > 1) return exactly({ HELD: 1, USER_LIMIT: params.clients - 1 }, outcomes);
      // One unit: the user's own hold takes the last one, so USER_LIMIT and SOLD_OUT are equally true for the
      // others, and the contract sets no order between the two checks.
      const { HELD = 0, USER_LIMIT = 0, SOLD_OUT = 0, ...other } = outcomes;
      return exactly(
        { HELD: 1, LIMITED_OR_SOLD_OUT: params.clients - 1 },
        {
          ...other,
          HELD,
          LIMITED_OR_SOLD_OUT: USER_LIMIT + SOLD_OUT,
        },
      );
    },
  },
});
