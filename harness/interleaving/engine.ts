/**
 * The interleaving engine, modelled on PostgreSQL's isolation tester: each session is its own connection,
 * steps are sent in the permutation's order without waiting for each other, and a step counts as blocked
 * when `pg_blocking_pids(its backend)` names another session's backend, observed on a control connection.
 * No timer decides an ordering: the poll interval only says how often the state is looked at again, and
 * every wait ends as soon as the step itself completes.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import type { NodeIdentity, PausePoint, SessionContext, Strategy } from '../../strategies/contract.ts';
import { Errors, oneLine } from '../errors.ts';
import { nodeIdentity } from '../node-identity.ts';
import { RollbackAtPause } from '../rollback-at-pause.ts';
import { sqlstateOf } from '../sqlstate.ts';
import type { Permutation, Step, StepRecord, StepResult } from './permutation.ts';

export interface EngineOptions {
  connectionString: string;
  /** Set as the sessions' search_path. */
  schema?: string;
  /** Needed for `reserve` steps. */
  strategy?: Strategy;
  /** How long one step may neither complete nor block, and how long blocked steps may take at the end. */
  timeoutMs: number;
  pollMs?: number;
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

interface InFlight {
  record: StepRecord;
  done: Promise<void>;
  completed: () => boolean;
}

interface Session {
  name: string;
  /** Every session of a permutation talks to one node. */
  node: NodeIdentity;
  client: pg.Client;
  pid: number;
  inFlight?: InFlight;
  /** A reserve step has run on this session. */
  reserved?: boolean;
  paused?: { requestKey: string; release(mode: 'commit' | 'rollback'): void; finished: Promise<StepResult> };
}

function failure(error: unknown): StepResult {
  const sqlstate = sqlstateOf(error);
  return { status: 'error', error: oneLine(error), ...(sqlstate ? { sqlstate } : {}) };
}

async function openSession(name: string, options: EngineOptions): Promise<Session> {
  const client = new pg.Client({
    connectionString: options.connectionString,
    application_name: `reservebench-${name}`,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  client.on('error', () => undefined);
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]?.pid;
  if (pid === undefined) throw new Error(`session ${name} has no backend pid`);
  return { name, client, pid, node: nodeIdentity(options.schema ?? 'engine', 0, 1) };
}

function startReserve(
  session: Session,
  step: Extract<Step, { reserve: unknown }>,
  strategy: Strategy | undefined,
): Promise<StepResult> {
  if (!strategy) throw Errors.badInput(`step ${step.name} reserves, but no strategy was given`);
  const reached = deferred<StepResult>();
  const gate = deferred<'commit' | 'rollback'>();
  const finished = deferred<StepResult>();
  let pausedOnce = false;
  const ctx: SessionContext = {
    db: session.client,
    node: session.node,
    pause: async (point: PausePoint) => {
      if (point !== step.until || pausedOnce) return;
      pausedOnce = true;
      session.paused = {
        requestKey: step.reserve.requestKey,
        release: gate.resolve,
        finished: finished.promise,
      };
      reached.resolve({ status: 'ok', paused: point });
      if ((await gate.promise) === 'rollback') throw new RollbackAtPause(point);
    },
  };
  strategy.reserve(ctx, step.reserve).then(
    (answer) => finished.resolve({ status: 'ok', answer }),
    (error: unknown) =>
      finished.resolve(
        error instanceof RollbackAtPause ? { status: 'ok', rolledBack: true } : failure(error),
      ),
  );
  return Promise.race([reached.promise, finished.promise]);
}

function startStep(session: Session, step: Step, strategy: Strategy | undefined): Promise<StepResult> {
  if ('sql' in step) {
    return session.client
      .query(step.sql)
      .then((r) => ({ status: 'ok', rows: r.rows as Record<string, unknown>[] }), failure);
  }
  if ('reserve' in step) {
    session.reserved = true;
    return startReserve(session, step, strategy);
  }
  const paused = session.paused;
  // The operation ended before its pause point (it answered early, e.g. after waiting on a unique index):
  // there is nothing to resume, and the permutation goes on.
  if (!paused && session.reserved) return Promise.resolve({ status: 'ok', endedBeforePause: true });
  if (!paused)
    throw Errors.badInput(`step ${step.name}: session ${session.name} is not paused in an operation`);
  session.paused = undefined;
  paused.release(step.resume);
  return paused.finished;
}

export async function runPermutation(
  permutation: Permutation,
  options: EngineOptions,
): Promise<StepRecord[]> {
  const pollMs = options.pollMs ?? 5;
  const control = new pg.Client({
    connectionString: options.connectionString,
    application_name: 'reservebench-control',
  });
  control.on('error', () => undefined);
  await control.connect();
  const sessions = new Map<string, Session>();
  try {
    for (const name of permutation.sessions) sessions.set(name, await openSession(name, options));
    const sessionPids = new Set([...sessions.values()].map((s) => s.pid));

    const blockedByAnotherSession = async (pid: number): Promise<boolean> => {
      const { rows } = await control.query<{ pids: number[] }>('SELECT pg_blocking_pids($1) AS pids', [pid]);
      return (rows[0]?.pids ?? []).some((p) => sessionPids.has(p));
    };

    /** Waits until the step completes or is seen blocked; a step that does neither is stuck. */
    const settle = async (session: Session, step: InFlight): Promise<'completed' | 'blocked'> => {
      const deadline = performance.now() + options.timeoutMs;
      for (;;) {
        if (step.completed()) return 'completed';
        const blocked = await blockedByAnotherSession(session.pid);
        if (step.completed()) return 'completed';
        if (blocked) return 'blocked';
        if (performance.now() > deadline) {
          throw Errors.barrierTimeout(`step ${step.record.step}`, options.timeoutMs / 1000);
        }
        await Promise.race([step.done, nextLook(pollMs)]);
      }
    };

    /** Waits for a step to complete, however long it stays blocked, up to the timeout. */
    const finish = async (steps: readonly InFlight[]): Promise<void> => {
      const timer = new AbortController();
      const all = Promise.all(steps.map((s) => s.done)).then(() => 'done' as const);
      const outcome = await Promise.race([
        all,
        nextLook(options.timeoutMs, 'stuck' as const, { signal: timer.signal }),
      ]);
      timer.abort();
      if (outcome === 'stuck') {
        const open = steps.filter((s) => !s.completed()).map((s) => s.record.step);
        throw Errors.barrierTimeout(`blocked step(s) ${open.join(', ')}`, options.timeoutMs / 1000);
      }
    };

    const records: StepRecord[] = [];
    for (const step of permutation.steps) {
      const session = sessions.get(step.session);
      if (!session) throw Errors.badInput(`step ${step.name} names an unknown session ${step.session}`);
      // Like isolationtester: a session's next step waits until its blocked one has finished.
      if (session.inFlight) await finish([session.inFlight]);
      session.inFlight = undefined;
      const requestKey = 'reserve' in step ? step.reserve.requestKey : session.paused?.requestKey;
      const record: StepRecord = {
        step: step.name,
        session: session.name,
        ...(requestKey && !('sql' in step) ? { requestKey } : {}),
        blocked: false,
        result: { status: 'ok' },
      };
      records.push(record);
      let completed = false;
      const done = startStep(session, step, options.strategy).then((result) => {
        record.result = result;
        completed = true;
      });
      const inFlight: InFlight = { record, done, completed: () => completed };
      if ((await settle(session, inFlight)) === 'blocked') {
        record.blocked = true;
        session.inFlight = inFlight;
      }
    }
    await finish([...sessions.values()].flatMap((s) => (s.inFlight ? [s.inFlight] : [])));
    return records;
  } finally {
    await Promise.all([...sessions.values()].map((s) => s.client.end().catch(() => undefined)));
    await control.end().catch(() => undefined);
  }
}
