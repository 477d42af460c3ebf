/**
 * Split brain, a control every design must be caught in: the primary fails over (killed, the standby
 * promoted), then the old primary starts again on its own directory, writable, beside the promoted one —
 * a watchdog that restarts a crashed server without asking the failover manager — and the clients reach
 * both (each session looks for a writable member from its own on, as libpq's load_balance_hosts spreads
 * them, so half land on each). Each side sells from its own copy of the stock: the units sold across the
 * two copies exceed the stock (`oversold`), and every hold only one side has is lost whichever side the
 * cluster keeps (`lostAcknowledged`, against each copy it could go on with). A design that keeps its own
 * count outside the database (a node's memory) may sell no more than its stock across both, and is caught
 * by the lost holds alone. Replication is asynchronous: a restarted synchronous primary would wait for a
 * standby it no longer has, and acknowledge nothing.
 */
import {
  defineScenario,
  LAB_SKU,
  requestsFor,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';
import { FAILOVER_FAULTS } from './failover-sync.ts';

const CLIENTS = 10;
const EACH = 8;

type Seen = { soldOnOldPrimary: number; soldOnPromoted: number };

export default defineScenario<Seen>({
  id: 'split-brain',
  kind: 'script',
  summary: 'the old primary comes back writable beside the promoted standby, clients reach both: caught',
  input: {
    clients: CLIENTS,
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  cluster: { replication: 'async', standbys: 1, faults: ['failover', 'restart-old-primary'] },
  sessionSettings: { synchronous_commit: 'on' },
  everyDesignCaughtBy: ['lostAcknowledged', 'oversold'],
  async run(ctx) {
    const [standby] = await ctx.cluster.standbys();
    if (!standby) throw new Error('the cluster has no standby');
    await ctx.reserve(requestsFor(ctx.params, 1, CLIENTS));
    await ctx.cluster.caughtUp(standby);
    await ctx.cluster.failover(standby);
    const old = await ctx.cluster.restartOldPrimary();
    const [oldBefore, promotedBefore] = [
      await ctx.cluster.availableOn(old),
      await ctx.cluster.availableOn(standby),
    ];
    await ctx.reserve(requestsFor(ctx.params, CLIENTS + 1, CLIENTS * (EACH - 1)), undefined, {
      perClient: EACH - 1,
    });
    ctx.observe('soldOnOldPrimary', oldBefore - (await ctx.cluster.availableOn(old)));
    ctx.observe('soldOnPromoted', promotedBefore - (await ctx.cluster.availableOn(standby)));
  },
  expect: {
    faults: FAILOVER_FAULTS,
    exercised: (_params, { observed }) => [
      ...((observed.soldOnOldPrimary ?? 0) > 0 ? [] : ['the old primary sold nothing after it came back']),
      ...((observed.soldOnPromoted ?? 0) > 0 ? [] : ['the promoted member sold nothing beside it']),
    ],
  },
});
