/**
 * The flash-sale lab's expiry run: expiry returns stock exactly once. 20 held; 8 made expired and expired
 * (8); replayed (0); replayed by 4 concurrent jobs (0 in total); the other 12 made expired and expired by 4
 * concurrent jobs (12 in total).
 */
import {
  defineScenario,
  expireConcurrently,
  figure,
  LAB_SKU,
  requestsFor,
  SHORT_HOLD_MS,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

const FIRST_EXPIRED = 8;
const CONCURRENT_JOBS = 4;

export default defineScenario<{ unitsReturned: number[] }>({
  id: 'expiry',
  kind: 'script',
  summary:
    '20 held, 8 expired: expire, replay, 4 concurrent replays, then the other 12 with 4 concurrent jobs',
  input: { clients: 20, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  operations: ['expire'],
  async run(ctx) {
    const sent = requestsFor(ctx.params, 1, ctx.params.clients);
    // Without the backdate hook the rest must outlast the first ones' wait and the three runs after it.
    const requests = [
      ...ctx.shortHolds(sent.slice(0, FIRST_EXPIRED), SHORT_HOLD_MS),
      ...ctx.shortHolds(sent.slice(FIRST_EXPIRED), 8 * SHORT_HOLD_MS),
    ];
    await ctx.reserve(requests);
    const keys = requests.map((r) => r.requestKey);
    await ctx.backdate(keys.slice(0, FIRST_EXPIRED));
    const first = await expireConcurrently(ctx, 1);
    const replay = await expireConcurrently(ctx, 1);
    const concurrentReplay = await expireConcurrently(ctx, CONCURRENT_JOBS);
    await ctx.backdate(keys.slice(FIRST_EXPIRED));
    const rest = await expireConcurrently(ctx, CONCURRENT_JOBS);
    ctx.observe('unitsReturned', [first, replay, concurrentReplay, rest]);
  },
  expect: {
    outcomes: (params) => ({ HELD: params.clients }),
    observations: (params) => ({ unitsReturned: [FIRST_EXPIRED, 0, 0, params.clients - FIRST_EXPIRED] }),
    relations: (_params, { invariants }) =>
      figure('active', invariants.active, 0, 'after every hold expired'),
  },
});
