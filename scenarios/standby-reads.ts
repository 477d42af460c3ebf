/**
 * Reads served by a standby, a control every design is caught in: replication is asynchronous and the
 * standby's link is cut once it has replayed the first 10 holds. One client then sends 20 requests, one
 * after another, for the 10 units left, and `status` of every key it was told HELD is served by the
 * standby, as a read-replica endpoint serves it: NOT_FOUND for a hold acknowledged before the read began
 * — an answer no order of the case's operations explains, which the history checker flags
 * (`linearizable`). A design that decides on what a standby says (the control standby-stock-check, whose
 * stock check reads one) oversells on top (`oversold`): the standby says 10 left to every request.
 */
import {
  defineScenario,
  LAB_SKU,
  requestsFor,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';

const FIRST = 10;
const THEN = 20;

type Seen = { heldPastStandby: number; statusBehind: number };

export default defineScenario<Seen>({
  id: 'standby-reads',
  kind: 'script',
  summary: "status served by a standby whose link was cut: answers behind the primary's, caught",
  input: {
    clients: FIRST,
    stock: [{ sku: LAB_SKU, total: 20 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 1,
  },
  cluster: { replication: 'async', standbys: 1, faults: ['partition', 'standby-session'] },
  sessionSettings: { synchronous_commit: 'on' },
  everyDesignCaughtBy: ['linearizable'],
  async run(ctx) {
    const [standby] = await ctx.cluster.standbys();
    if (!standby) throw new Error('the cluster has no standby');
    await ctx.reserve(requestsFor(ctx.params, 1, FIRST));
    await ctx.cluster.caughtUp(standby);
    await ctx.cluster.partition(standby);
    const answers = await ctx.reserve(requestsFor(ctx.params, FIRST + 1, THEN), () => ctx.node(0, 1, 1), {
      perClient: THEN,
    });
    const held = answers.filter((a) => a.outcome === 'HELD').map((a) => a.requestKey);
    ctx.observe('heldPastStandby', held.length);
    const statuses = await ctx.cluster.statusOnStandby(held);
    ctx.observe('statusBehind', statuses.filter((s) => s === 'NOT_FOUND').length);
  },
  expect: {
    exercised: (_params, { observed }) => [
      ...((observed.heldPastStandby ?? 0) > 0 ? [] : ['no hold acknowledged past the standby']),
      ...((observed.statusBehind ?? 0) > 0 ? [] : ['the standby served no status behind the primary']),
    ],
  },
});
