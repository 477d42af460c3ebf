/**
 * A service connection that PostgreSQL cut (an admin's pg_terminate_backend, a failover, a restart,
 * idle_in_transaction_session_timeout): how the service notices it, and the answer a request gets when its
 * connection was cut under it or could not be had. A write cut mid-request may or may not have committed —
 * the COMMIT may have been carried out and only its answer lost — so it is answered INDETERMINATE, without
 * Retry-After (which promises that nothing was written): the same request sent again with the same key
 * tells (docs/http-api.md). A read, or a request that got no connection at all, wrote nothing: 503 with
 * Retry-After, like a full gate.
 */
import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import { oneLine } from '../../../errors.ts';
import { reply } from './exchange.ts';
import type { Lane, ServiceState } from './service-state.ts';

/** Connections that reported their socket failed or the server ended them. */
const cut = new WeakSet<pg.ClientBase>();

/**
 * Every connection a service pool opens: a connection cut while a request holds it reports to the
 * connection, not to the pool (which listens only while it is idle), and without a listener the process
 * would die of the unhandled 'error'.
 */
export function watchConnections(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    client.on('error', () => cut.add(client));
  });
}

/** The server ended the session (FATAL: 57P01 terminated, 25P03 idle-in-transaction timeout, …). */
function sessionEnded(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('severity' in error)) return false;
  return error.severity === 'FATAL' || error.severity === 'PANIC';
}

/**
 * Whether `error`, met by a request on `client`, is its connection's loss. The server's FATAL reaches the
 * statement before the socket closes; the driver's own errors ("Connection terminated unexpectedly",
 * "not queryable") come after the connection reported it.
 */
export function connectionLost(client: pg.ClientBase, error: unknown): boolean {
  return cut.has(client) || sessionEnded(error);
}

/** 503 for a request whose connection failed: INDETERMINATE for a write that was under way, else retryable. */
export function answerLostConnection(
  service: ServiceState,
  lane: Lane,
  res: ServerResponse,
  error: unknown,
  underWay: boolean,
): void {
  service.tally.connectionFailures += 1;
  const why = oneLine(error).replace(/\s+/g, ' ');
  if (underWay && lane.name === 'reservations') {
    reply(res, 503, {
      outcome: 'INDETERMINATE',
      reason: `the database connection was lost during the request (${why}); it may have committed: send the same request again with the same request_key to learn what happened`,
    });
    return;
  }
  reply(
    res,
    503,
    { outcome: 'DATABASE_UNAVAILABLE', reason: `no database connection (${why}); nothing was written` },
    { 'retry-after': '1' },
  );
}
