/**
 * The client driver of a black box: the scenario's clients, run on the main thread's event loop instead of
 * worker threads. A client of an HTTP service does no work of its own (it waits on a socket; the service
 * does the work), so threads buy it nothing, and it has no database session a worker would open first.
 * Everything else is the worker driver's: the same client scripts, all started together once every client
 * is ready (one start barrier), each client's requests in order, the same per-request deadline (twice
 * --timeout-ms: then an ERROR) and the same answer records. Client i talks to node i mod n (its bound node,
 * when a script binds it), so requests spread over the base URLs; every exchange is recorded where it
 * happens, on this thread.
 */
import type { SessionContext } from '../../../../strategies/contract.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';
import { oneLine } from '../../../errors.ts';
import type { ClientDriver, DriveOptions } from '../driver/client-pool.ts';
import type { ClientResult, ClientScript, RequestResult } from '../driver/client-task.ts';
import { answeredResult, answerWithin } from '../driver/reserve-answer.ts';
import { type HttpBlackBox, NO_DATABASE_SESSION } from './http-black-box.ts';

export class BlackBoxDriver implements ClientDriver {
  constructor(private readonly target: HttpBlackBox) {}

  async drive(options: DriveOptions): Promise<ClientResult[]> {
    const n = this.target.settings.urls.length;
    let release: () => void = () => undefined;
    const start = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runOne = async (client: ClientScript, position: number): Promise<ClientResult> => {
      const node = client.node ?? nodeIdentity(options.connection.schema, position % n, n);
      let retries: Record<string, number> = {};
      const ctx: SessionContext = {
        db: NO_DATABASE_SESSION,
        node,
        pause: async () => undefined,
        retried: (reason) => {
          retries[reason] = (retries[reason] ?? 0) + 1;
        },
      };
      await start;
      const results: RequestResult[] = [];
      for (const [i, request] of client.requests.entries()) {
        const { requestKey, user, sku } = request;
        if (i === client.requests.length - 1) await options.lastAfter?.catch(() => undefined);
        const began = performance.now();
        retries = {};
        const retried = () => (Object.keys(retries).length > 0 ? { retries } : {});
        if (client.rollbackAt || client.holdAt || options.holdAt) {
          // run-case never asks this of a strategy without pause points; a script that does is told so.
          results.push({
            requestKey,
            user,
            sku,
            outcome: 'ERROR',
            latencyMs: 0,
            error: 'a black box cannot be held or rolled back at a pause point',
          });
          continue;
        }
        try {
          const answer = await answerWithin(
            this.target.strategy.reserve(ctx, request),
            2 * options.timeoutMs,
          );
          results.push(answeredResult(request, answer, performance.now() - began, retried()));
          if (client.untilRefused && results.at(-1)?.outcome !== 'HELD') break;
        } catch (error: unknown) {
          results.push({
            requestKey,
            user,
            sku,
            outcome: 'ERROR',
            latencyMs: performance.now() - began,
            error: oneLine(error),
            ...retried(),
          });
          if (client.untilRefused) break;
        }
      }
      return { index: client.index, results };
    };
    const running = options.clients.map(runOne);
    // Every client is set up and waiting: they all start in the same turn of the event loop.
    release();
    const results = await Promise.all(running);
    return results.sort((a, b) => a.index - b.index);
  }

  async close(): Promise<void> {}
}
