/**
 * The flash-sale lab's unconditional-expiry counter-example: 10 of 10 held, 5 made expired; expiry runs, is
 * replayed once, then 10 new clients reserve. A correct expiry returns 5 then 0 and lets 5 new clients in;
 * one that returns a unit per id it was given, HELD or not, returns 5 twice and oversells by 5 — while
 * `available <= total` never fires.
 */
import {
  defineScenario,
  expireConcurrently,
  LAB_SKU,
  requestsFor,
  SHORT_HOLD_MS,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

const EXPIRED = 5;

export default defineScenario<{ unitsReturned: number[]; newHeld: number }>({
  id: 'expire-replay',
  kind: 'script',
  summary: '10 of 10 held, 5 expired: expire, replay the same job, then 10 new clients',
  input: { clients: 10, stock: [{ sku: LAB_SKU, total: 10 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  operations: ['expire'],
  async run(ctx) {
    const all = requestsFor(ctx.params, 1, ctx.params.clients);
    const held = [...ctx.shortHolds(all.slice(0, EXPIRED), SHORT_HOLD_MS), ...all.slice(EXPIRED)];
    await ctx.reserve(held);
    await ctx.backdate(held.slice(0, EXPIRED).map((r) => r.requestKey));
    ctx.observe('unitsReturned', [await expireConcurrently(ctx, 1), await expireConcurrently(ctx, 1)]);
    const fresh = await ctx.reserve(requestsFor(ctx.params, ctx.params.clients + 1, ctx.params.clients));
    ctx.observe('newHeld', fresh.filter((a) => a.outcome === 'HELD').length);
  },
  expect: {
    outcomes: (params) => ({ HELD: params.clients + EXPIRED, SOLD_OUT: params.clients - EXPIRED }),
    observations: () => ({ unitsReturned: [EXPIRED, 0], newHeld: EXPIRED }),
  },
});
