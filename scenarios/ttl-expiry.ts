/**
 * Real time, where time is the subject: 5 holds are sent with a 300 ms `ttl_ms`, 5 with a minute. The
 * scenario waits until the database's own clock has passed the short expiry (observed with
 * clock_timestamp(), not slept on), runs expiry once, and checks that exactly the short holds ended: no
 * backdate hook, so a design that ignores the `ttl_ms` a client sends is caught here.
 */
import {
  defineScenario,
  LAB_SKU,
  requestsFor,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';

const SHORT_TTL_MS = 300;
const SHORT = 5;

export default defineScenario<{
  unitsReturned: number;
  shortExpired: number;
  longStillHeld: number;
  newHeld: number;
}>({
  id: 'ttl-expiry',
  kind: 'script',
  access: ['database-clock'],
  summary: `${SHORT} holds with ttl_ms ${SHORT_TTL_MS} and ${SHORT} with a minute; expire once the database clock has passed`,
  input: { clients: 10, stock: [{ sku: LAB_SKU, total: 10 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  operations: ['expire'],
  async run(ctx) {
    const all = requestsFor(ctx.params, 1, ctx.params.clients);
    const short = all.slice(0, SHORT).map((r) => ({ ...r, ttlMs: SHORT_TTL_MS }));
    const long = all.slice(SHORT);
    await ctx.reserve([...short, ...long]);
    // Every short hold's expiry lies at most SHORT_TTL_MS after its transaction, which ended before now.
    await ctx.databaseClockPasses(SHORT_TTL_MS);
    ctx.observe(
      'unitsReturned',
      await ctx.withSessions(1, ([s]) => (s ? ctx.expire(s) : Promise.resolve(-1))),
    );
    const statuses: string[] = [];
    for (const r of all) statuses.push(await ctx.status(r.requestKey));
    ctx.observe('shortExpired', statuses.slice(0, SHORT).filter((s) => s === 'EXPIRED').length);
    ctx.observe('longStillHeld', statuses.slice(SHORT).filter((s) => s === 'HELD').length);
    const fresh = await ctx.reserve(requestsFor(ctx.params, ctx.params.clients + 1, SHORT));
    ctx.observe('newHeld', fresh.filter((a) => a.outcome === 'HELD').length);
  },
  expect: {
    outcomes: (params) => ({ HELD: params.clients + SHORT }),
    observations: (params) => ({
      unitsReturned: SHORT,
      shortExpired: SHORT,
      longStillHeld: params.clients - SHORT,
      newHeld: SHORT,
    }),
    exercised: (_params, { observed }) => (observed.shortExpired ? [] : ['no hold expired by real time']),
  },
});
