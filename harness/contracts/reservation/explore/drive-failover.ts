/**
 * A program with a FAILOVER step, on a synchronous cluster (`explore --cluster embedded`). The steps
 * before it run on the interleaving engine on the primary; at FAILOVER the standby's link is cut (the
 * suite's proxy) and the step after it is sent as the operation in flight: once it has answered, or its
 * commit is seen waiting for the standby (`pg_stat_activity.wait_event = 'SyncRep'`, never a sleep), the
 * primary is killed (immediate shutdown) and the standby promoted. An operation cut off that way has an
 * unknown ending, and is sent again with its key on the promoted member right after the failover, on its
 * session (a client retries the request it got no answer for, never one it got); every later step runs on
 * the promoted member, on new connections. The final read then reads every copy, and
 * the checks count across them (lostAcknowledged, oversold) beside the history's model. No operation may
 * be stopped at a pause point across the failover: an order that leaves one stopped there is invalid.
 */
import pg from 'pg';
import type { ClusterMember } from '../../../cluster/cluster.ts';
import type { ClusterRunDatabase } from '../../../cluster/cluster-database.ts';
import { withDatabaseName } from '../../../database/member-urls.ts';
import { pollUntil } from '../../../database/poll-until.ts';
import { Errors } from '../../../errors.ts';
import { InvalidPermutation, runPermutation } from '../../../interleaving/engine.ts';
import { harnessNow } from '../../../interleaving/harness-clock.ts';
import { Nodes } from '../../../interleaving/nodes.ts';
import {
  type ContractStep,
  isContractStep,
  type Permutation,
  type Step,
  type StepRecord,
} from '../../../interleaving/permutation.ts';
import { Session } from '../../../interleaving/session.ts';
import type { StepEnvironment } from '../../../interleaving/spec-verbs.ts';
import type { Outcome } from '../../../interleaving/step-outcome.ts';
import type { CaseOnSchema } from '../case/case-spec.ts';
import { recordedSteps } from '../case/drive-interleaving.ts';
import type { Driven } from '../case/driven.ts';
import { reservationStep } from '../spec/reservation-steps.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';

const WAITS_ON_STANDBY = "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'SyncRep'";

export const hasFailover = (permutation: Permutation): boolean =>
  permutation.steps.some((s) => 'failover' in s);

/** A step that may commit a write: an operation of the design (not a read), sent whole. */
function writes(step: Step | undefined): step is ContractStep {
  if (!step || !isContractStep(step)) return false;
  const own = reservationStep(step);
  return own !== undefined && !('read' in own);
}

/** The first operation still stopped at a pause point after `steps`, by its session. */
function stoppedAcross(steps: readonly Step[]): Step | undefined {
  const open = new Map<string, Step>();
  for (const step of steps) {
    if (isContractStep(step) && step.until) open.set(step.session, step);
    else if ('resume' in step) open.delete(step.session);
  }
  return [...open.values()][0];
}

/** Steps on the member writable now, on new sessions, as the interleaving engine runs any order. */
async function segment(on: CaseOnSchema, url: string, steps: readonly Step[], nodes: Nodes) {
  if (steps.length === 0) return [];
  return runPermutation(
    { sessions: [...new Set(steps.map((s) => s.session))], steps },
    {
      nodes,
      connectionString: url,
      schema: on.schema,
      contract: { verbs: RESERVATION_VERBS, design: on.spec.ref.strategy },
      timeoutMs: on.settings.timeoutMs,
      rejectInvalid: true,
      clockWait: (ms) => on.history.distinguishableWait(ms),
    },
  );
}

interface Flight {
  record: StepRecord;
  /** Resolves once the operation has ended: answered, or cut off by the failover. */
  ended: Promise<Outcome>;
  close(): Promise<void>;
}

/** Sends `step` on a session of its own and returns once it has answered or waits on the standby. */
async function sendInFlight(on: CaseOnSchema, url: string, step: ContractStep, nodes: Nodes) {
  const session = await Session.open(step.session, { connectionString: url, schema: on.schema }, () => {});
  const control = new pg.Client({ connectionString: url, application_name: 'reservebench-control' });
  control.on('error', () => undefined);
  await control.connect();
  const env: StepEnvironment = {
    contract: { verbs: RESERVATION_VERBS, design: on.spec.ref.strategy },
    nodes,
    control,
    steps: new Map([[step.name, step]]),
    clockWait: (ms) => on.history.distinguishableWait(ms),
    pollMs: 5,
    timeoutMs: on.settings.timeoutMs,
  };
  const record: StepRecord = {
    step: step.name,
    session: step.session,
    ...(step.requestKey ? { requestKey: step.requestKey } : {}),
    blocked: false,
    retrying: false,
    sentAt: harnessNow(),
    result: { status: 'ok' },
  };
  let answered = false;
  const ended = RESERVATION_VERBS.start(session, step, env).then((outcome) => {
    answered = true;
    record.completedAt = harnessNow();
    return outcome;
  });
  const close = async () => {
    await session.client.end().catch(() => undefined);
    await control.end().catch(() => undefined);
  };
  const seen = await pollUntil(
    async () => answered || ((await control.query(WAITS_ON_STANDBY, [session.pid])).rowCount ?? 0) > 0,
    { timeoutMs: on.settings.timeoutMs, everyMs: 5 },
  );
  if (!seen) {
    await close();
    throw Errors.barrierTimeout(
      `step ${step.name} (in flight at the failover)`,
      on.settings.timeoutMs / 1000,
    );
  }
  return { record, ended, close, answeredBefore: () => answered };
}

/**
 * The operation in flight, sent with the standby's link cut. If it breaks there (it never answers nor
 * waits on the standby), the link heals before the error goes on: with it cut, every later commit on the
 * primary — the case's own cleanup among them — would wait for the standby for ever.
 */
async function sendAcrossCut(on: CaseOnSchema, step: ContractStep, nodes: Nodes, standby: ClusterMember) {
  const db = on.db as ClusterRunDatabase;
  try {
    return await sendInFlight(on, withDatabaseName((await db.cluster.primary()).url, db.name), step, nodes);
  } catch (error: unknown) {
    await db.cluster.heal(standby);
    throw error;
  }
}

/** The in-flight operation's record once it has ended: its answer, or an unknown ending. */
async function landed(flight: Flight, cutOff: boolean): Promise<StepRecord> {
  const outcome = await flight.ended;
  await flight.close();
  const { record } = flight;
  if (!cutOff || outcome.result.status === 'ok') {
    record.result = outcome.result;
    return record;
  }
  const { sqlstate } = outcome.result;
  delete record.completedAt;
  record.result = {
    status: 'error',
    ...(sqlstate ? { sqlstate } : {}),
    // The case's own fault: no answer came, and it may or may not have taken effect.
    killed: true,
    error: `cut off by the failover (${outcome.result.error}): it may or may not have taken effect`,
  };
  return record;
}

export async function driveFailover(on: CaseOnSchema, permutation: Permutation): Promise<Driven> {
  if (!('cluster' in on.db)) throw Errors.badInput('a spec with FAILOVER runs only on a cluster');
  const db = on.db as ClusterRunDatabase;
  const steps = permutation.steps;
  const at = steps.findIndex((s) => 'failover' in s);
  const failover = steps[at] as Step;
  const stopped = stoppedAcross(steps.slice(0, at));
  if (stopped) throw new InvalidPermutation(failover.name, stopped.name);
  const next = steps[at + 1];
  const inFlight = writes(next) && !next.until ? next : undefined;
  const nodes = new Nodes(on.schema);
  const urlNow = async () => withDatabaseName((await db.cluster.primary()).url, db.name);
  const records = [...(await segment(on, await urlNow(), steps.slice(0, at), nodes))];
  const [standby] = await db.cluster.standbys();
  if (!standby) throw new Error('the cluster has no standby to fail over to');
  await db.cluster.partition(standby);
  const flight = inFlight ? await sendAcrossCut(on, inFlight, nodes, standby) : undefined;
  const cutOff = flight !== undefined && !flight.answeredBefore();
  await db.cluster.failover(standby);
  await db.reconnect();
  await db.admin.query(`SET search_path TO ${on.schema}`);
  const ending = flight ? await landed(flight, cutOff) : undefined;
  if (ending) records.push(ending);
  // A client retries, with its key, the request whose answer it did not get (never one it got): as
  // landed() recorded it, not as it looked before the kill — an answer can still come before the kill
  // lands (a commit whose wait for the standby is cancelled answers OK), and its retry would put back
  // on the promoted member the very hold the failover lost.
  const unanswered = ending?.result.status === 'error' && ending.result.killed === true;
  const retry = inFlight && unanswered ? [{ ...inFlight, name: `${inFlight.name}-retried` }] : [];
  const rest = [...retry, ...steps.slice(at + (inFlight ? 2 : 1))];
  records.push(...(await segment(on, await urlNow(), rest, nodes)));
  const ran = {
    sessions: permutation.sessions,
    steps: [...steps.slice(0, at + (inFlight ? 2 : 1)), ...rest],
  };
  return recordedSteps(on, ran, records, nodes);
}
