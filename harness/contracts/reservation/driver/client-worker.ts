/**
 * Piscina worker entry: runs a group of virtual clients on this thread. Each client has its own
 * connection; all connect first, then meet every other thread's clients at the shared start barrier.
 */
import type pg from 'pg';
import type {
  PausePoint,
  ReserveRequest,
  SessionContext,
  Strategy,
} from '../../../../strategies/contract.ts';
import { sqlstateOf } from '../../../../strategies/support/sqlstate.ts';
import { connectMember } from '../../../database/member-connection.ts';
import { memberUrls } from '../../../database/member-urls.ts';
import { SharedBarrier } from '../../../driver/barrier.ts';
import { sessionOptions } from '../../../driver/case-connection.ts';
import { RollbackAtPause } from '../../../driver/rollback-at-pause.ts';
import { oneLine } from '../../../errors.ts';
import { countUnhandledErrors } from '../../../registry/unhandled-errors.ts';
import type { ClientResult, ClientScript, ClientTask, RequestResult } from './client-task.ts';
import { answeredResult, answerWithin } from './reserve-answer.ts';

// A design's forgotten promise would otherwise end this thread, and every client on it, unexplained.
countUnhandledErrors();

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
  /** Its connection ended under it (the server went away): the next request needs another. */
  lost: boolean;
  ctx: SessionContext;
  /** It has met the others at the hold barrier (once per script). */
  passedHold: boolean;
  /** The design's own retries during the current request, by reason. */
  retries: Record<string, number>;
}

/**
 * The client's connection: to the database the case names, or, when it names several members (a
 * cluster), to the writable one, looked for from member `index` on and waited for while a failover is under
 * way (member-connection.ts). A backend killed under it surfaces on its queries, never as an uncaught
 * event of the worker thread.
 */
async function connectClient(task: ClientTask, script: ClientScript): Promise<pg.Client | Error> {
  const config = {
    connectionString: task.connection.connectionString,
    application_name: `reservebench-client-${script.index}`,
    options: sessionOptions(task.connection),
  };
  try {
    return await connectMember(config, { prefer: script.index, waitMs: task.timeoutMs });
  } catch (error: unknown) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The client's session on a standby (SessionContext.standby); none when no standby answers. */
async function connectStandby(task: ClientTask, script: ClientScript): Promise<pg.Client | undefined> {
  const config = {
    connectionString: task.connection.connectionString,
    application_name: `reservebench-standby-${script.index}`,
    options: sessionOptions(task.connection),
  };
  return connectMember(config, { role: 'standby', prefer: script.index, waitMs: task.timeoutMs }).catch(
    () => undefined,
  );
}

/**
 * What a session meets when its member goes away or stops taking writes: the server shutting down
 * (57P01–57P03), the connection gone (08xxx), a member demoted to a standby (25006, read-only).
 */
const MEMBER_LOST = new Set(['57P01', '57P02', '57P03', '08001', '08003', '08006', '25006']);

/** Whether the case's database is a cluster whose sessions move to the writable member after a fault. */
const movesOnFailover = (task: ClientTask) => memberUrls(task.connection.connectionString).length > 1;

/**
 * Replaces a lost connection with one to the member writable now; the design gets the new one in its
 * session from the next request on. A client that finds none keeps the lost one: its next request fails.
 */
async function reconnect(task: ClientTask, script: ClientScript, session: ScriptSession): Promise<void> {
  await session.client.end().catch(() => undefined);
  const client = await connectClient(task, script);
  if (client instanceof Error) return;
  watchLoss(session, client);
  session.client = client;
  session.ctx.db = client;
}

function watchLoss(session: ScriptSession, client: pg.Client): void {
  session.lost = false;
  client.once('end', () => {
    if (session.client === client) session.lost = true;
  });
}

/** The session a script's reserves run in: it waits at the hold barrier and rolls back where told. */
function openSession(thread: ClientThread, script: ClientScript, client: pg.Client): ScriptSession {
  const { hold, task } = thread;
  const holdsAt = (point: PausePoint) =>
    hold !== undefined && point === (script.holdAt ?? hold.point) && !session.passedHold;
  const session: ScriptSession = {
    client,
    lost: false,
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
  watchLoss(session, client);
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
  const standby = task.connection.standby ? await connectStandby(task, script) : undefined;
  if (standby) session.ctx.standby = standby;
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
      if (session.lost && movesOnFailover(task)) await reconnect(task, script, session);
      const result = await sendRequest(thread, session, request);
      if (result.sqlstate && MEMBER_LOST.has(result.sqlstate)) session.lost = true;
      results.push(result);
      if (script.untilRefused && result.outcome !== 'HELD') break;
    }
  } finally {
    if (hold && !session.passedHold) hold.barrier.leave();
    if (thread.lastGate && !atGate) thread.lastGate.leave();
    await session.client.end().catch(() => undefined);
    await standby?.end().catch(() => undefined);
  }
  return { index: script.index, results };
}

/** The task's strategy, loaded and checked by its contract's registry (the task names the module). */
async function importedStrategy(task: ClientTask): Promise<Strategy> {
  const registry = (await import(task.strategyImporter)) as {
    importDesign(moduleUrl: string): Promise<Strategy>;
  };
  return registry.importDesign(task.strategyModuleUrl);
}

export default async function runClients(task: ClientTask): Promise<ClientResult[]> {
  const thread: ClientThread = {
    task,
    strategy: await importedStrategy(task),
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
