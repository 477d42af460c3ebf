/**
 * Piscina worker entry: runs a group of virtual clients on this thread. Each client has its own
 * connection; all connect first, then meet every other thread's clients at the shared start barrier.
 */
import pg from 'pg';
import type { PausePoint, ReserveRequest, SessionContext } from '../../strategies/contract.ts';
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

export default async function runClients(task: ClientTask): Promise<ClientResult[]> {
  const strategy = await importStrategy(task.strategyModuleUrl);
  const start = new SharedBarrier(task.start.buffer, task.start.parties);
  const hold = task.hold && {
    point: task.hold.point,
    barrier: new SharedBarrier(task.hold.buffer, task.hold.parties),
  };

  const connect = async (script: ClientScript): Promise<pg.Client | Error> => {
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
  };

  const runOne = async (script: ClientScript, client: pg.Client | Error): Promise<ClientResult> => {
    if (client instanceof Error) {
      start.leave();
      hold?.barrier.leave();
      return {
        index: script.index,
        results: script.requests.map((r) => errorResult(r, client, 0)),
      };
    }
    let passedHold = false;
    let retries: Record<string, number> = {};
    const ctx: SessionContext = {
      db: client,
      retried: (reason) => {
        retries[reason] = (retries[reason] ?? 0) + 1;
      },
      ...(script.node ? { node: script.node } : {}),
      pause: async (point: PausePoint) => {
        if (hold && point === (script.holdAt ?? hold.point) && !passedHold) {
          passedHold = true;
          await hold.barrier.arriveAndWait(task.timeoutMs, `hold at ${point}`);
        }
        if (point === script.rollbackAt) throw new RollbackAtPause(point);
      },
    };
    const results: RequestResult[] = [];
    try {
      await start.arriveAndWait(task.timeoutMs, 'start barrier');
      for (const request of script.requests) {
        const began = performance.now();
        retries = {};
        const retried = () => (Object.keys(retries).length > 0 ? { retries } : {});
        try {
          // Twice the barrier timeout: a reserve may legitimately wait at a hold barrier first.
          const answer = await answerWithin(strategy.reserve(ctx, request), 2 * task.timeoutMs, () =>
            cutConnection(client),
          );
          results.push(answeredResult(request, answer, performance.now() - began, retried()));
        } catch (error: unknown) {
          const latencyMs = performance.now() - began;
          results.push(
            error instanceof RollbackAtPause
              ? {
                  requestKey: request.requestKey,
                  user: request.user,
                  sku: request.sku,
                  outcome: 'ROLLED_BACK',
                  latencyMs,
                }
              : errorResult(request, error, latencyMs),
          );
        }
      }
    } finally {
      if (hold && !passedHold) hold.barrier.leave();
      await client.end().catch(() => undefined);
    }
    return { index: script.index, results };
  };

  const clients = await Promise.all(task.clients.map(connect));
  return Promise.all(
    task.clients.map((script, i) => runOne(script, clients[i] ?? new Error('no connection'))),
  );
}
