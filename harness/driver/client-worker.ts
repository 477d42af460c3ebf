/**
 * Piscina worker entry: runs a group of virtual clients on this thread. Each client has its own
 * connection; all connect first, then meet every other thread's clients at the shared start barrier.
 */
import pg from 'pg';
import type { PausePoint, ReserveRequest, SessionContext, Strategy } from '../../strategies/contract.ts';
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import { oneLine } from '../errors.ts';
import { importStrategy } from '../registry/registry.ts';
import { SharedBarrier } from './barrier.ts';
import {
  type ClientResult,
  type ClientScript,
  type ClientTask,
  type RequestResult,
  sessionOptions,
} from './client-task.ts';
import { answeredResult, answerWithin } from './reserve-answer.ts';
import { RollbackAtPause } from './rollback-at-pause.ts';

function errorResult(request: ReserveRequest, error: unknown, latencyMs: number): RequestResult {
  const sqlstate = sqlstateOf(error);
  return {
    requestKey: request.requestKey,
    user: request.user,
    sku: request.sku,
    outcome: 'ERROR',
    latencyMs,
    error: oneLine(error),
    ...(sqlstate ? { sqlstate } : {}),
  };
}

/** Cuts a client's connection, so its backend rolls back whatever the unanswered reserve holds. */
function cutConnection(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** A rolled-back reserve (a script's `rollbackAt` pause point): no answer, nothing held. */
function rolledBackResult(request: ReserveRequest, latencyMs: number): RequestResult {
  return {
    requestKey: request.requestKey,
    user: request.user,
    sku: request.sku,
    outcome: 'ROLLED_BACK',
    latencyMs,
  };
}

/** What every client on this thread shares: the strategy, the start barrier, and the hold barrier if any. */
interface ClientThread {
  task: ClientTask;
  strategy: Strategy;
  start: SharedBarrier;
  hold: { point: PausePoint; barrier: SharedBarrier } | undefined;
  lastGate: SharedBarrier | undefined;
}

/** One client's session state while its script runs. */
interface ScriptSession {
  client: pg.Client;
  ctx: SessionContext;
  /** It has met the others at the hold barrier (once per script). */
  passedHold: boolean;
  /** The design's own retries during the current request, by reason. */
  retries: Record<string, number>;
}

async function connectClient(task: ClientTask, script: ClientScript): Promise<pg.Client | Error> {
  const client = new pg.Client({
    connectionString: task.connection.connectionString,
    application_name: `reservebench-client-${script.index}`,
    options: sessionOptions(task.connection),
  });
  // A backend killed under a client surfaces here instead of crashing the worker thread.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error: unknown) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The session a script's reserves run in: it waits at the hold barrier and rolls back where told. */
function openSession(thread: ClientThread, script: ClientScript, client: pg.Client): ScriptSession {
  const { hold, task } = thread;
  const holdsAt = (point: PausePoint) =>
    hold !== undefined && point === (script.holdAt ?? hold.point) && !session.passedHold;
  const session: ScriptSession = {
    client,
    passedHold: false,
    retries: {},
    ctx: {
      db: client,
      retried: (reason) => {
        session.retries[reason] = (session.retries[reason] ?? 0) + 1;
      },
      ...(script.node ? { node: script.node } : {}),
      pausesAt: (point: PausePoint) => holdsAt(point) || point === script.rollbackAt,
      pause: async (point: PausePoint) => {
        if (hold && holdsAt(point)) {
          session.passedHold = true;
          await hold.barrier.arriveAndWait(task.timeoutMs, `hold at ${point}`);
        }
        if (point === script.rollbackAt) throw new RollbackAtPause(point);
      },
    },
  };
  return session;
}

/** One reserve of the script, answered, rolled back or failed. */
async function sendRequest(
  thread: ClientThread,
  session: ScriptSession,
  request: ReserveRequest,
): Promise<RequestResult> {
  const began = performance.now();
  session.retries = {};
  const retried = () => (Object.keys(session.retries).length > 0 ? { retries: session.retries } : {});
  try {
    // Twice the barrier timeout: a reserve may legitimately wait at a hold barrier first.
    const answer = await answerWithin(
      thread.strategy.reserve(session.ctx, request),
      2 * thread.task.timeoutMs,
      () => cutConnection(session.client),
    );
    return answeredResult(request, answer, performance.now() - began, retried());
  } catch (error: unknown) {
    const latencyMs = performance.now() - began;
    return error instanceof RollbackAtPause
      ? rolledBackResult(request, latencyMs)
      : errorResult(request, error, latencyMs);
  }
}

async function runScript(
  thread: ClientThread,
  script: ClientScript,
  client: pg.Client | Error,
): Promise<ClientResult> {
  const { start, hold, task } = thread;
  if (client instanceof Error) {
    start.leave();
    hold?.barrier.leave();
    thread.lastGate?.leave();
    return {
      index: script.index,
      results: script.requests.map((r) => errorResult(r, client, 0)),
    };
  }
  const session = openSession(thread, script, client);
  const results: RequestResult[] = [];
  const last = script.requests.length - 1;
  let atGate = false;
  try {
    await start.arriveAndWait(task.timeoutMs, 'start barrier');
    for (const [i, request] of script.requests.entries()) {
      if (i === last && thread.lastGate) {
        atGate = true;
        await thread.lastGate.arriveAndWait(task.timeoutMs, 'the last requests held back');
      }
      const result = await sendRequest(thread, session, request);
      results.push(result);
      if (script.untilRefused && result.outcome !== 'HELD') break;
    }
  } finally {
    if (hold && !session.passedHold) hold.barrier.leave();
    if (thread.lastGate && !atGate) thread.lastGate.leave();
    await client.end().catch(() => undefined);
  }
  return { index: script.index, results };
}

export default async function runClients(task: ClientTask): Promise<ClientResult[]> {
  const thread: ClientThread = {
    task,
    strategy: await importStrategy(task.strategyModuleUrl),
    start: new SharedBarrier(task.start.buffer, task.start.parties),
    hold: task.hold && {
      point: task.hold.point,
      barrier: new SharedBarrier(task.hold.buffer, task.hold.parties),
    },
    lastGate: task.lastGate && new SharedBarrier(task.lastGate.buffer, task.lastGate.parties),
  };
  const clients = await Promise.all(task.clients.map((script) => connectClient(task, script)));
  return Promise.all(
    task.clients.map((script, i) => runScript(thread, script, clients[i] ?? new Error('no connection'))),
  );
}
