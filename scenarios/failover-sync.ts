/**
 * The primary fails over under load, replication synchronous (`synchronous_standby_names = 'FIRST 1
 * (member2)'`, every session `synchronous_commit = on`): a HELD was flushed on the standby before its
 * client heard it, so no acknowledged hold may be missing after the standby is promoted
 * (`lostAcknowledged`, counted against every copy the cluster goes on with), nothing may be sold twice
 * across the copies (`oversold`), and a request the failover cut off, retried with its key, answers REPLAY
 * exactly when it had taken effect on the new primary.
 *
 * Placed by what the cluster is seen to be in, never by time: 10 holds committed; the standby has replayed
 * them (its replay LSN); its link is cut (the suite's proxy); a commit is then flushed on the primary and
 * waits for the standby (`pg_stat_activity.wait_event = SyncRep`), unacknowledged; the primary is killed
 * (immediate shutdown) and the standby promoted. The clients, each with its last request held until the
 * failover came, find the promoted member themselves and go on until 80 requests are sent for 40 units.
 * On a cluster whose link the suite cannot cut (a manager's), the manager's failover comes between 20 more
 * holds and the rest of the load (handOverBetween).
 */
import type { ClusterMember, Replication } from '../harness/cluster/cluster.ts';
import {
  defineScenario,
  LAB_SKU,
  type Problem,
  requestsFor,
  type ScriptContext,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';
import type { RequestResult } from '../harness/driver/client-task.ts';
import { CRASH_FAULTS } from './db-crash.ts';

const CLIENTS = 10;
const EACH = 8;
const BEFORE_FAULT = CLIENTS;
/** Holds the primary acknowledges past its cut-off standby before the failover (asynchronous). */
const PAST_STANDBY = 5;

/** What a failover case saw along the way. */
export type FailoverSeen = {
  /** ms without a writable member, as the harness saw it. */
  unavailableMs: number;
  /** Commits flushed on the primary and waiting for the standby when it failed (synchronous, link cut). */
  waitingOnStandby: number;
  /** Holds acknowledged by the primary after its standby's link was cut (asynchronous). */
  heldPastStandby: number;
  /** Where the suite cannot cut the link: holds acknowledged on the primary before the hand-over. */
  heldBeforeFailover: number;
  heldAfterFailover: number;
} & RetrySeen;

/** The requests a fault cut off, retried with their keys once the cluster took writes again. */
export type RetrySeen = {
  unknownOutcomes: number;
  /** Of those, how many the new primary had (read through `status` before the retry). */
  unknownTookEffect: number;
  /** Retries that answered REPLAY for a key the new primary had: what the contract asks. */
  replayedWhatTookEffect: number;
  /** Retries that did not answer REPLAY although the key was there. */
  missedWhatTookEffect: number;
  /** Retries that answered REPLAY for a key the new primary did not have. */
  replayedWhatDidNot: number;
};

/** What a fault cuts a request off with: a server going away, a connection closed. */
export const FAILOVER_FAULTS = CRASH_FAULTS;

/**
 * Every request a fault cut off, retried with its key once the cluster takes writes again, after asking
 * the member writable then whether it had taken effect: one that had must answer REPLAY, one that had not
 * must not. The retries go through the case's nodes, as a client's retry reaches the service again.
 */
export async function retryUnknown(ctx: ScriptContext<RetrySeen>, answers: readonly RequestResult[]) {
  const cut = answers.filter(
    (a) => a.outcome === 'ERROR' && a.sqlstate && (FAILOVER_FAULTS as readonly string[]).includes(a.sqlstate),
  );
  const took = new Set<string>();
  for (const a of cut) if ((await ctx.status(a.requestKey)) !== 'NOT_FOUND') took.add(a.requestKey);
  const requests = cut.map((a) => ({
    requestKey: a.requestKey,
    user: a.user,
    sku: a.sku,
    ttlMs: ctx.params.ttlMs,
  }));
  const retried = requests.length > 0 ? await ctx.reserve(requests) : [];
  const replayed = (a: RequestResult) => a.outcome === 'REPLAY';
  ctx.observe('unknownOutcomes', cut.length);
  ctx.observe('unknownTookEffect', took.size);
  ctx.observe('replayedWhatTookEffect', retried.filter((a) => took.has(a.requestKey) && replayed(a)).length);
  ctx.observe('missedWhatTookEffect', retried.filter((a) => took.has(a.requestKey) && !replayed(a)).length);
  ctx.observe('replayedWhatDidNot', retried.filter((a) => !took.has(a.requestKey) && replayed(a)).length);
}

/** The retries against what the contract asks: REPLAY exactly for the keys that had taken effect. */
export function retryProblems(observed: Partial<RetrySeen>): Problem[] {
  const missed = observed.missedWhatTookEffect ?? 0;
  const invented = observed.replayedWhatDidNot ?? 0;
  return [
    ...(missed > 0
      ? [
          {
            check: 'outcomes' as const,
            message: `${missed} retried request(s) had taken effect on the new primary and did not answer REPLAY`,
          },
        ]
      : []),
    ...(invented > 0
      ? [
          {
            check: 'outcomes' as const,
            message: `${invented} retried request(s) answered REPLAY for a key the new primary did not have`,
          },
        ]
      : []),
  ];
}

/** Whether the primary has committed what its standby lacks: a commit waiting on it, or holds past it. */
async function pastStandby(
  ctx: ScriptContext<FailoverSeen>,
  link: { sync: boolean },
  availableBefore: number,
): Promise<boolean> {
  if (link.sync) {
    const waiting = await ctx.cluster.commitsWaitingOnStandby();
    ctx.observe('waitingOnStandby', waiting);
    return waiting > 0;
  }
  const held = availableBefore - (await ctx.cluster.availableOnPrimary());
  ctx.observe('heldPastStandby', held);
  return held >= PAST_STANDBY;
}

/** HELD answers each client got from its first cut-off request on, and for its last (held until the failover). */
function heldAfterFailover(answers: readonly RequestResult[], perClient: number): number {
  let held = 0;
  for (let from = 0; from < answers.length; from += perClient) {
    const own = answers.slice(from, from + perClient);
    const cut = own.findIndex((a) => a.outcome === 'ERROR');
    const after = cut >= 0 ? own.slice(cut + 1) : own.slice(-1);
    held += after.filter((a) => a.outcome === 'HELD').length;
  }
  return held;
}

const heldIn = (answers: readonly RequestResult[]) => answers.filter((a) => a.outcome === 'HELD').length;

/**
 * Where the suite cannot cut the link (a manager's cluster): it cannot hold a commit in flight at the
 * moment of the fault either, and a load that runs across a manager's seconds-long hand-over would sell out
 * before it, or cut requests off by luck. So: 20 more holds on the primary, the manager's hand-over, then
 * the rest of the load on the member it promoted — every acknowledged hold must be there, and it must sell
 * exactly the units left. A request cut off all the same is retried as anywhere else.
 */
async function handOverBetween(
  ctx: ScriptContext<FailoverSeen>,
  standby: ClusterMember,
  fault: 'failover' | 'switchover',
): Promise<void> {
  const before = await ctx.reserve(requestsFor(ctx.params, BEFORE_FAULT + 1, CLIENTS * 2));
  ctx.observe('heldBeforeFailover', heldIn(before));
  const facts = await (fault === 'switchover'
    ? ctx.cluster.switchover(standby)
    : ctx.cluster.failover(standby));
  ctx.observe('unavailableMs', facts.unavailableMs);
  const after = await ctx.reserve(
    requestsFor(ctx.params, BEFORE_FAULT + CLIENTS * 2 + 1, CLIENTS * (EACH - 3)),
  );
  ctx.observe('heldAfterFailover', heldIn(after));
  await retryUnknown(ctx, [...before, ...after]);
}

/** Which standby is cut and promoted, and how the primary hands over to it. */
interface FaultChoice {
  /** `stale`: the second standby, while the first (the synchronous one) keeps acknowledging. */
  promote?: 'current' | 'stale';
  /** `switchover`: the primary's sessions end, the link heals, it shuts down fast and follows. */
  fault?: 'failover' | 'switchover';
}

/**
 * The drive failover-sync, failover-async, stale-promotion and switchover share: the first holds, the link of the
 * standby to be promoted cut where the suite can cut it, the rest of the load with each client's last
 * request held until the failover, the failover once the primary has committed what that standby lacks,
 * then every cut-off request retried. `stale`: the standby cut and promoted is the second one, while the
 * first (the synchronous one) keeps acknowledging.
 */
export function failoverUnderLoad(
  replication: Replication,
  { promote = 'current', fault = 'failover' }: FaultChoice = {},
) {
  return async (ctx: ScriptContext<FailoverSeen>): Promise<void> => {
    const standby = (await ctx.cluster.standbys())[promote === 'stale' ? 1 : 0];
    if (!standby) throw new Error('the cluster has too few standbys');
    await ctx.reserve(requestsFor(ctx.params, 1, BEFORE_FAULT));
    const cutLink = ctx.cluster.can('partition');
    if (!cutLink) return handOverBetween(ctx, standby, fault);
    await ctx.cluster.caughtUp(standby);
    await ctx.cluster.partition(standby);
    const availableBefore = await ctx.cluster.availableOnPrimary();
    let failedOver: () => void = () => undefined;
    const lastAfter = new Promise<void>((resolve) => {
      failedOver = resolve;
    });
    const rest = requestsFor(ctx.params, BEFORE_FAULT + 1, CLIENTS * (EACH - 1));
    const driving = ctx.reserve(rest, undefined, { perClient: EACH - 1, lastAfter });
    try {
      // A commit waits on the standby cut off only where that standby is the synchronous one.
      const link = { sync: replication === 'sync' && promote === 'current' };
      await ctx.cluster.until('commits on the primary that its standby lacks', () =>
        pastStandby(ctx, link, availableBefore),
      );
      const facts = await (fault === 'switchover'
        ? ctx.cluster.switchover(standby)
        : ctx.cluster.failover(standby));
      ctx.observe('unavailableMs', facts.unavailableMs);
    } finally {
      failedOver();
    }
    const answers = await driving;
    ctx.observe('heldAfterFailover', heldAfterFailover(answers, EACH - 1));
    await retryUnknown(ctx, answers);
  };
}

export default defineScenario<FailoverSeen>({
  id: 'failover-sync',
  kind: 'script',
  summary: `the primary fails over under ${CLIENTS} clients, replication synchronous: no acknowledged hold lost, none sold twice`,
  input: {
    clients: CLIENTS,
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  cluster: { replication: 'sync', standbys: 1, faults: ['failover'] },
  sessionSettings: { synchronous_commit: 'on' },
  run: failoverUnderLoad('sync'),
  expect: {
    faults: FAILOVER_FAULTS,
    relations: (_params, { observed }) => retryProblems(observed),
    exercised: (_params, { outcomes, observed }) => [
      // Where no link could be cut (a manager's cluster) no request is held in flight: see handOverBetween.
      ...(outcomes.INDETERMINATE || observed.heldBeforeFailover !== undefined
        ? []
        : ['the failover cut no request off']),
      ...((observed.heldAfterFailover ?? 0) > 0 ? [] : ['no hold on the promoted member']),
    ],
  },
});
