/**
 * The interleaving engine, modelled on PostgreSQL's isolation tester: each session is its own connection,
 * steps are sent in the permutation's order without waiting for each other, and a step counts as blocked
 * when `pg_blocking_pids(its backend)` names another session's backend, observed on a control connection.
 * After each step, the steps seen blocked earlier are looked at again, so a completion is reported right
 * after the step that released it, as the tester prints it. No timer decides an ordering: the poll
 * interval only says how often the state is looked at again, and every wait ends as soon as the step
 * itself completes.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import type {
  IsolationLevel,
  NodeIdentity,
  PausePoint,
  SessionContext,
  Strategy,
} from '../../strategies/contract.ts';
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import { RollbackAtPause } from '../driver/rollback-at-pause.ts';
import { Errors, EXIT, HarnessError, oneLine } from '../errors.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import type {
  Blocker,
  EngineEvent,
  Permutation,
  PermutationFrame,
  ResultTable,
  ServerMessage,
  Step,
  StepRecord,
  StepResult,
} from './permutation.ts';

export interface EngineOptions {
  connectionString: string;
  /** Set as the search_path of the sessions and the control connection. */
  schema?: string;
  /** Needed for `reserve` steps. */
  strategy?: Strategy;
  /** How long one step may neither complete nor block, and how long blocked steps may take at the end. */
  timeoutMs: number;
  pollMs?: number;
  /** Setup and teardown SQL around the permutation (a spec's). */
  frame?: PermutationFrame;
  /** Told what happens, in the order the isolation tester prints it. */
  onEvent?: (event: EngineEvent) => void;
  /** Throw InvalidPermutation instead of waiting for a step that nothing can let go on. */
  rejectInvalid?: boolean;
  /** The sessions' default_transaction_isolation (not the control connection's). */
  isolation?: IsolationLevel;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** How a step ended: the recorded result, plus what the tester prints of it. */
interface Outcome {
  result: StepResult;
  tables: ResultTable[];
  error?: ServerMessage;
}

interface InFlight {
  step: Step;
  session: Session;
  record: StepRecord;
  /** Settles once `outcome` is set; never rejects. */
  done: Promise<void>;
  outcome?: Outcome;
  /** For each `notices` blocker: the notice count its session must reach. */
  noticeTargets: Map<Blocker, number>;
}

interface Session {
  name: string;
  /** Why the connection went away between steps, if it did. */
  lostWith(): unknown;
  /** Every session of a permutation talks to one node. */
  node: NodeIdentity;
  client: pg.Client;
  pid: number;
  notices: number;
  /** Sent and not yet reported completed, like the tester's active step. */
  active?: InFlight;
  /** A reserve step has run on this session. */
  reserved?: boolean;
  paused?: { requestKey: string; release(mode: 'commit' | 'rollback'): void; finished: Promise<Outcome> };
}

/** Values exactly as the server sent them, for output that must match the tester's byte for byte. */
const RAW_TEXT = {
  getTypeParser: () => (value: string) => value,
} as unknown as pg.CustomTypesConfig;

function serverMessageOf(error: unknown): ServerMessage {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { severity, message, detail, hint } = error as Partial<Record<string, unknown>>;
    return {
      severity: typeof severity === 'string' ? severity : 'ERROR',
      message: String(message),
      ...(typeof detail === 'string' ? { detail } : {}),
      ...(typeof hint === 'string' ? { hint } : {}),
    };
  }
  return { severity: 'ERROR', message: oneLine(error) };
}

function failure(error: unknown): Outcome {
  const sqlstate = sqlstateOf(error);
  return {
    result: { status: 'error', error: oneLine(error), ...(sqlstate ? { sqlstate } : {}) },
    tables: [],
    error: serverMessageOf(error),
  };
}

const ok = (result: StepResult): Outcome => ({ result, tables: [] });

type RawResult = pg.QueryArrayResult<(string | null)[]>;

/** Every result of the (possibly several) statements in `sql`, in order. */
async function send(client: pg.Client, sql: string): Promise<RawResult[]> {
  const answer: unknown = await client.query({ text: sql, rowMode: 'array', types: RAW_TEXT });
  return (Array.isArray(answer) ? answer : [answer]) as RawResult[];
}

const tableOf = (r: RawResult): ResultTable => ({ columns: r.fields.map((f) => f.name), rows: r.rows });

/** Rows as the driver would have parsed them, for the step records. */
function parsedRows(r: RawResult): Record<string, unknown>[] {
  const parsers = r.fields.map((f) =>
    pg.types.getTypeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text'),
  );
  return r.rows.map((values) =>
    Object.fromEntries(
      r.fields.map((f, i) => {
        const value = values[i];
        return [f.name, value === null || value === undefined ? null : parsers[i]?.(value)];
      }),
    ),
  );
}

async function runSql(client: pg.Client, sql: string): Promise<Outcome> {
  try {
    const withRows = (await send(client, sql)).filter((r) => r.fields.length > 0);
    const last = withRows.at(-1);
    return { result: { status: 'ok', rows: last ? parsedRows(last) : [] }, tables: withRows.map(tableOf) };
  } catch (error: unknown) {
    return failure(error);
  }
}

/** Setup and teardown SQL, which the tester sends with PQexec: only the last result is shown. */
async function runFrameSql(
  client: pg.Client,
  sql: string,
): Promise<{ tables: ResultTable[] } | { error: string }> {
  try {
    const last = (await send(client, sql)).at(-1);
    return { tables: last && last.fields.length > 0 ? [tableOf(last)] : [] };
  } catch (error: unknown) {
    return { error: serverMessageOf(error).message };
  }
}

async function openSession(
  name: string,
  options: EngineOptions,
  onNotice: (session: Session, notice: ServerMessage) => void,
): Promise<Session> {
  const client = new pg.Client({
    connectionString: options.connectionString,
    application_name: `reservebench-${name}`,
    ...(options.schema
      ? { options: sessionOptions({ schema: options.schema, isolation: options.isolation }) }
      : {}),
  });
  // A backend terminated while the session is idle arrives here, not as a query's error: kept, so the
  // next step fails with the server's own reason (57P01) instead of "not queryable".
  let lost: unknown;
  client.on('error', (error) => {
    lost ??= error;
  });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]?.pid;
  if (pid === undefined) throw new Error(`session ${name} has no backend pid`);
  const session: Session = {
    name,
    client,
    pid,
    notices: 0,
    node: nodeIdentity(options.schema ?? 'engine', 0, 1),
    lostWith: () => lost,
  };
  client.on('notice', (notice) => onNotice(session, serverMessageOf(notice)));
  return session;
}

/** A strategy call that may stop at `until`, transaction open, until a RESUME step of its session. */
function startPausable(
  session: Session,
  step: { name: string; until?: PausePoint },
  requestKey: string,
  call: (ctx: SessionContext) => Promise<StepResult>,
): Promise<Outcome> {
  const reached = deferred<Outcome>();
  const gate = deferred<'commit' | 'rollback'>();
  const finished = deferred<Outcome>();
  let pausedOnce = false;
  const ctx: SessionContext = {
    db: session.client,
    node: session.node,
    pause: async (point: PausePoint) => {
      if (point !== step.until || pausedOnce) return;
      pausedOnce = true;
      session.paused = { requestKey, release: gate.resolve, finished: finished.promise };
      reached.resolve(ok({ status: 'ok', paused: point }));
      if ((await gate.promise) === 'rollback') throw new RollbackAtPause(point);
    },
  };
  call(ctx).then(
    (result) => finished.resolve(ok(result)),
    (error: unknown) =>
      finished.resolve(
        error instanceof RollbackAtPause
          ? ok({ status: 'ok', rolledBack: true })
          : failure(session.lostWith() ?? error),
      ),
  );
  return Promise.race([reached.promise, finished.promise]);
}

function startLifecycle(
  session: Session,
  step: Extract<Step, { operation: unknown }>,
  strategy: Strategy | undefined,
): Promise<Outcome> {
  if (!strategy)
    throw Errors.badInput(`step ${step.name} calls ${step.operation}, but no strategy was given`);
  const key = step.requestKey ?? '';
  const missing = () => Errors.badInput(`step ${step.name}: ${strategy.id} has no ${step.operation}`);
  return startPausable(session, step, key, async (ctx): Promise<StepResult> => {
    switch (step.operation) {
      case 'confirm':
        if (!strategy.confirm) throw missing();
        return { status: 'ok', value: await strategy.confirm(ctx, key) };
      case 'release':
        if (!strategy.release) throw missing();
        return { status: 'ok', value: await strategy.release(ctx, key) };
      case 'expire':
        if (!strategy.expire) throw missing();
        return { status: 'ok', value: await strategy.expire(ctx) };
      case 'backdate':
        if (!strategy.backdate) throw missing();
        await strategy.backdate(ctx.db, [key]);
        return { status: 'ok' };
      case 'disable':
        if (!strategy.disable) throw missing();
        return { status: 'ok', value: await strategy.disable(ctx, key) };
    }
  });
}

function startReserve(
  session: Session,
  step: Extract<Step, { reserve: unknown }>,
  strategy: Strategy | undefined,
): Promise<Outcome> {
  if (!strategy) throw Errors.badInput(`step ${step.name} reserves, but no strategy was given`);
  return startPausable(session, step, step.reserve.requestKey, async (ctx) => {
    // An answer outside the contract (an unknown outcome) is an error naming it, as for any client.
    const checked = checkAnswer(await strategy.reserve(ctx, step.reserve));
    if ('problem' in checked) throw new Error(checked.problem);
    return { status: 'ok', answer: checked.answer };
  });
}

function startStep(session: Session, step: Step, strategy: Strategy | undefined): Promise<Outcome> {
  if ('sql' in step) return runSql(session.client, step.sql);
  if ('reserve' in step) {
    session.reserved = true;
    return startReserve(session, step, strategy);
  }
  if ('operation' in step) {
    session.reserved = true;
    return startLifecycle(session, step, strategy);
  }
  const paused = session.paused;
  // The operation ended before its pause point (it answered early, e.g. after waiting on a unique index):
  // there is nothing to resume, and the permutation goes on.
  if (!paused && session.reserved) return Promise.resolve(ok({ status: 'ok', endedBeforePause: true }));
  if (!paused)
    throw Errors.badInput(`step ${step.name}: session ${session.name} is not paused in an operation`);
  session.paused = undefined;
  paused.release(step.resume);
  return paused.finished;
}

/**
 * The permutation asks a session for its next step while that session's previous step waits on a lock
 * held by sessions that are themselves idle, waiting for steps that come later: nothing can let it go on
 * (the isolation tester's "invalid permutation detected"). Seen on the database, not timed out.
 */
export class InvalidPermutation extends HarnessError {
  constructor(
    readonly step: string,
    readonly waitingStep: string,
  ) {
    super(
      `invalid permutation: ${step} needs its session, whose step ${waitingStep} waits on idle sessions`,
      EXIT.expectationFailed,
    );
  }
}

/** The tester's flags: `nonblock` returns once the step is seen waiting; `retry` for a step already reported waiting. */
interface Look {
  nonblock: boolean;
  retry: boolean;
}

export async function runPermutation(
  permutation: Permutation,
  options: EngineOptions,
): Promise<StepRecord[]> {
  const pollMs = options.pollMs ?? 5;
  const emit = options.onEvent ?? (() => undefined);
  const frame = options.frame ?? {};
  const stepsByName = new Map(permutation.steps.map((s) => [s.name, s]));
  for (const step of permutation.steps) {
    for (const b of step.blockers ?? []) {
      if (b.kind !== 'once' && !stepsByName.has(b.step))
        throw Errors.badInput(`step ${step.name} waits for step ${b.step}, which is not in the permutation`);
    }
  }
  const control = new pg.Client({
    connectionString: options.connectionString,
    application_name: 'reservebench-control',
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  control.on('error', () => undefined);
  await control.connect();
  const sessions = new Map<string, Session>();
  let noticeArrived = false;
  const onNotice = (session: Session, notice: ServerMessage) => {
    session.notices += 1;
    noticeArrived = true;
    emit({ kind: 'notice', session: session.name, notice });
  };
  try {
    for (const sql of frame.setup ?? []) {
      const out = await runFrameSql(control, sql);
      if ('error' in out) throw Errors.badInput(`setup failed: ${out.error}`);
      if (out.tables.length > 0) emit({ kind: 'rows', tables: out.tables });
    }
    for (const name of permutation.sessions) sessions.set(name, await openSession(name, options, onNotice));
    for (const session of sessions.values()) {
      const sql = frame.sessionSetup?.[session.name];
      if (sql === undefined) continue;
      const out = await runFrameSql(session.client, sql);
      if ('error' in out) throw Errors.badInput(`setup of session ${session.name} failed: ${out.error}`);
      if (out.tables.length > 0) emit({ kind: 'rows', tables: out.tables });
    }

    const blockingSessions = async (pid: number): Promise<Session[]> => {
      const { rows } = await control.query<{ pids: number[] }>('SELECT pg_blocking_pids($1) AS pids', [pid]);
      const pids = new Set(rows[0]?.pids ?? []);
      return [...sessions.values()].filter((s) => pids.has(s.pid));
    };
    const blockedByAnotherSession = async (pid: number): Promise<boolean> =>
      (await blockingSessions(pid)).length > 0;
    /** Blocked only by sessions with no step running: they will not move before a later step is sent. */
    const waitsOnIdleSessions = async (step: InFlight): Promise<boolean> => {
      if (step.outcome) return false;
      const by = await blockingSessions(step.session.pid);
      return by.length > 0 && by.every((s) => s.active === undefined) && !step.outcome;
    };

    // A backend reports an error before it rolls back and lets go of its locks; until it is idle, a step
    // it blocked would still look blocked, and where its completion is printed would depend on timing.
    const untilIdle = async (pid: number): Promise<void> => {
      const deadline = performance.now() + options.timeoutMs;
      try {
        while (performance.now() < deadline) {
          const { rows } = await control.query<{ active: boolean }>(
            "SELECT state = 'active' AS active FROM pg_stat_activity WHERE pid = $1",
            [pid],
          );
          if (!rows[0]?.active) return;
          await nextLook(pollMs);
        }
      } catch {
        // The control connection closed under a permutation that is already failing.
      }
    };

    /** Waits until the step completes or is seen blocked; a step that does neither is stuck. */
    const settle = async (step: InFlight): Promise<'completed' | 'blocked'> => {
      const deadline = performance.now() + options.timeoutMs;
      for (;;) {
        if (step.outcome) return 'completed';
        const blocked = await blockedByAnotherSession(step.session.pid);
        if (step.outcome) return 'completed';
        if (blocked) return 'blocked';
        if (performance.now() > deadline) {
          throw Errors.barrierTimeout(`step ${step.record.step}`, options.timeoutMs / 1000);
        }
        await Promise.race([step.done, nextLook(pollMs)]);
      }
    };

    /** Waits for a step to complete, however long it stays blocked, up to the timeout. */
    const finish = async (step: InFlight): Promise<void> => {
      const timer = new AbortController();
      const outcome = await Promise.race([
        step.done.then(() => 'done' as const),
        nextLook(options.timeoutMs, 'stuck' as const, { signal: timer.signal }),
      ]);
      timer.abort();
      if (outcome === 'stuck') {
        throw Errors.barrierTimeout(`blocked step(s) ${step.record.step}`, options.timeoutMs / 1000);
      }
    };

    const heldBack = (step: InFlight): boolean =>
      (step.step.blockers ?? []).some((b) => {
        if (b.kind === 'once') return false;
        const other = sessions.get(stepsByName.get(b.step)?.session ?? '');
        if (b.kind === 'step') return other?.active?.step.name === b.step;
        return (other?.notices ?? 0) < (step.noticeTargets.get(b) ?? 0);
      });

    /** isolationtester's try_complete_step: true while the step is still (reported) waiting. */
    const tryComplete = async (step: InFlight, look: Look): Promise<boolean> => {
      const waitingNow = () => {
        if (!look.retry) emit({ kind: 'waiting', step: step.step });
        return true;
      };
      if (!look.retry && step.step.blockers?.some((b) => b.kind === 'once')) return waitingNow();
      if (!look.nonblock) await finish(step);
      else if ((await settle(step)) === 'blocked') {
        step.record.blocked = true;
        return waitingNow();
      }
      const { outcome } = step;
      if (!outcome || heldBack(step)) return waitingNow();
      emit({
        kind: 'completed',
        step: step.step,
        afterWaiting: look.retry,
        tables: outcome.tables,
        ...(outcome.error ? { error: outcome.error } : {}),
      });
      step.session.active = undefined;
      return false;
    };

    /** Steps reported waiting and not yet completed, in the order they were sent. */
    const waiting: InFlight[] = [];
    const tryCompleteWaiting = async (look: Look): Promise<void> => {
      for (;;) {
        const before = waiting.length;
        let annotated = false;
        noticeArrived = false;
        for (let w = 0; w < waiting.length; ) {
          const step = waiting[w];
          if (!step) break;
          if (await tryComplete(step, look)) {
            annotated ||= (step.step.blockers?.length ?? 0) > 0;
            w += 1;
          } else {
            waiting.splice(w, 1);
          }
        }
        // A completion or notice may have released an annotated step looked at before it.
        if (!(annotated && (waiting.length < before || noticeArrived))) return;
      }
    };

    const records: StepRecord[] = [];
    const start = (session: Session, step: Step): InFlight => {
      const requestKey =
        'reserve' in step
          ? step.reserve.requestKey
          : 'operation' in step
            ? step.requestKey
            : session.paused?.requestKey;
      const started = startStep(session, step, options.strategy);
      const record: StepRecord = {
        step: step.name,
        session: session.name,
        ...(requestKey && !('sql' in step) ? { requestKey } : {}),
        blocked: false,
        result: { status: 'ok' },
      };
      records.push(record);
      const flight: InFlight = { step, session, record, done: Promise.resolve(), noticeTargets: new Map() };
      flight.done = started.then(async (outcome) => {
        if (outcome.result.status === 'error') await untilIdle(session.pid);
        record.result = outcome.result;
        flight.outcome = outcome;
      });
      for (const b of step.blockers ?? []) {
        if (b.kind !== 'notices') continue;
        const other = sessions.get(stepsByName.get(b.step)?.session ?? '');
        flight.noticeTargets.set(b, b.count + (other?.notices ?? 0));
      }
      return flight;
    };

    for (const step of permutation.steps) {
      const session = sessions.get(step.session);
      if (!session) throw Errors.badInput(`step ${step.name} names an unknown session ${step.session}`);
      // Like isolationtester: a session's next step waits until its blocked one has been reported done.
      const deadline = performance.now() + options.timeoutMs;
      if (options.rejectInvalid && session.active && (await waitsOnIdleSessions(session.active))) {
        throw new InvalidPermutation(step.name, session.active.step.name);
      }
      while (session.active) {
        const active = session.active;
        if (!(await tryComplete(active, { nonblock: false, retry: true }))) {
          const at = waiting.indexOf(active);
          if (at >= 0) waiting.splice(at, 1);
        }
        await tryCompleteWaiting({ nonblock: true, retry: true });
        if (!session.active) break;
        if (performance.now() > deadline) {
          throw Errors.barrierTimeout(`step ${session.active.step.name}`, options.timeoutMs / 1000);
        }
        await nextLook(pollMs);
      }
      const flight = start(session, step);
      session.active = flight;
      const mustWait = await tryComplete(flight, { nonblock: true, retry: false });
      await tryCompleteWaiting({ nonblock: true, retry: true });
      if (mustWait) waiting.push(flight);
    }
    await tryCompleteWaiting({ nonblock: false, retry: true });
    if (waiting.length > 0) {
      const names = waiting.map((s) => s.step.name).join(', ');
      throw new HarnessError(
        `step(s) ${names} wait for each other through their annotations: the permutation cannot finish`,
        EXIT.expectationFailed,
      );
    }

    for (const session of sessions.values()) {
      const sql = frame.sessionTeardown?.[session.name];
      if (sql === undefined) continue;
      const out = await runFrameSql(session.client, sql);
      if ('error' in out)
        emit({ kind: 'teardown-failed', where: `teardown of session ${session.name}`, error: out.error });
      else if (out.tables.length > 0) emit({ kind: 'rows', tables: out.tables });
    }
    if (frame.teardown !== undefined) {
      const out = await runFrameSql(control, frame.teardown);
      if ('error' in out) emit({ kind: 'teardown-failed', where: 'teardown', error: out.error });
      else if (out.tables.length > 0) emit({ kind: 'rows', tables: out.tables });
    }
    return records;
  } finally {
    await Promise.all([...sessions.values()].map((s) => s.client.end().catch(() => undefined)));
    await control.end().catch(() => undefined);
  }
}
