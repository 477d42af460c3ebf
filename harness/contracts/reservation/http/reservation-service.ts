/**
 * The reservation service over HTTP (the flash-sale lab's API), in front of any strategy, behind bounded
 * admission.
 *
 * POST /reserve → 201 HELD, 200 REPLAY, 409 SOLD_OUT | USER_LIMIT, 422 KEY_REUSED, 400 BAD_REQUEST,
 * 503 REJECTED_QUEUE_FULL | REJECTED_WAIT_TIMEOUT with Retry-After: 1; POST /confirm/{key} and
 * POST /release/{key} → 200 CONFIRMED | RELEASED (this call moved the hold), 200 REPLAY (it already had that
 * status), 409 CONFLICT (it had ended otherwise), 404 NOT_FOUND, 501 NOT_IMPLEMENTED when the strategy has
 * no such operation, or the same 503s; GET /reservations/{key} → 200 status, 404 NOT_FOUND, 400 for a key
 * no reservation can have, or the same 503s; GET /stock/{sku} → 200 remaining (the strategy's own
 * `remaining`), 404 for a sku the service does not sell; GET /admission → the gates' and the expiry job's
 * counters as JSON; GET /metrics → the same and more in the Prometheus text format. A 503 with Retry-After
 * is only returned when nothing was written, so a client may retry with the same key without asking first;
 * a write whose database connection was cut under it is a 503 INDETERMINATE without it (lost-connection.ts).
 * Node's http server hands each request straight to the handler (no executor with a hidden queue). Writes
 * (reserve, confirm, release) and reads (reservations, stock) each pass a gate of their own (same bounds)
 * onto a pool of their own with exactly `limit` connections, so the only queues in front of the database
 * are the gates' bounded ones, and a flood of reads never holds a connection an admitted write waits for.
 * The expiry job has one more connection of its own. Once admitted, a request runs to its end even if its
 * client has gone. The route table is service-routes.ts, each route's answer service-handlers.ts, and a
 * request's record and its `--log-json` line exchange.ts.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import type { IsolationLevel, NodeIdentity, StockLine, Strategy } from '../../../../strategies/contract.ts';
import { sessionOptions } from '../../../driver/case-connection.ts';
import type { AdmissionSettings } from '../../../gate/admission.ts';
import { type Gate, type GateChoice, LOCAL_GATE } from '../../../gate/gate.ts';
import { openGate } from '../../../gate/open-gate.ts';
import { beginExchange, type Exchange, type RequestLog, requestLog } from './exchange.ts';
import { startExpiryJob } from './expiry-job.ts';
import { FrontDoor } from './front-door.ts';
import { closeListener, listenOn, portOf } from './listener.ts';
import { watchConnections } from './lost-connection.ts';
import { failed } from './service-handlers.ts';
import { type GateName, ServiceMetrics } from './service-metrics.ts';
import { dispatch, routeOf } from './service-routes.ts';
import type { Lane, ServiceCounters, ServiceState } from './service-state.ts';

export { STATUS_OF } from './service-handlers.ts';

export interface ServiceOptions {
  strategy: Strategy;
  connectionString: string;
  schema?: string;
  /** The pool's default_transaction_isolation (`run --isolation`). */
  isolation?: IsolationLevel;
  admission: AdmissionSettings;
  /**
   * The gate of each lane (absent: local, one per process). A shared gate is named after `gateName` and the
   * lane, so every instance given the same name shares its permits.
   */
  gate?: GateChoice;
  /** The shared gate's name (default: the schema). */
  gateName?: string;
  /**
   * Extra work per admitted write (reserve, confirm, release) before its transaction (the flash-sale lab's
   * HTTP admission run: 30 ms; its disconnect run: 600 ms).
   */
  workMs: number;
  node: NodeIdentity;
  /** The expiry job's period in ms; 0 or absent: no job (the scenarios run expiry themselves). */
  expireEveryMs?: number;
  /** The skus the service sells: GET /stock/{sku} answers 404 for any other. Absent: every sku is read. */
  skus?: readonly string[];
  /** Called once per request when it is over (`serve --log-json` prints each as one JSON line). */
  log?: (entry: RequestLog) => void;
  /**
   * POST /admin/reset (`serve --allow-reset`, docs/http-api.md): replaces the strategy's tables with fresh
   * ones holding this stock, and returns the node identity to serve under from then on (a new incarnation,
   * so memory a design kept for the old tables is dropped). Absent: the route answers 403.
   */
  reset?: (stock: StockLine[]) => Promise<NodeIdentity>;
}

export interface ReservationService {
  url: string;
  /** The writes' gate (the lookups' is of the same kind). */
  gate: Gate;
  counters(): ServiceCounters;
  /** Stops accepting and the expiry job, lets admitted requests and a run in progress finish, closes the pools. */
  close(): Promise<void>;
}

function openPool(options: ServiceOptions, role: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    application_name: `reservebench-service${role}`,
    ...(options.schema
      ? { options: sessionOptions({ schema: options.schema, isolation: options.isolation }) }
      : {}),
  });
  // An idle connection cut by the server is dropped by the pool, which reports it here.
  pool.on('error', () => undefined);
  watchConnections(pool);
  return pool;
}

async function openLane(options: ServiceOptions, name: GateName, role: string): Promise<Lane> {
  const gate = await openGate(options.gate ?? LOCAL_GATE, options.admission, {
    connectionString: options.connectionString,
    name: `${options.gateName ?? options.schema ?? 'public'}/${name}`,
  });
  return { name, gate, pool: openPool(options, role, options.admission.limit) };
}

/** Both lanes, or neither: a shared gate that cannot be opened leaves nothing open behind it. */
async function openLanes(options: ServiceOptions): Promise<[Lane, Lane]> {
  const reservations = await openLane(options, 'reservations', '');
  try {
    return [reservations, await openLane(options, 'lookups', '-lookups')];
  } catch (error: unknown) {
    await Promise.all([reservations.gate.close(), reservations.pool.end()]);
    throw error;
  }
}

/** The request's line for `--log-json` and its count in the metrics, once it is over. */
function finished(service: ServiceState, res: ServerResponse, x: Exchange, log: ServiceOptions['log']): void {
  const code = x.code ?? res.statusCode;
  const end = x.answeredAt ?? performance.now();
  service.metrics.answered(
    x.method,
    x.route,
    x.clientAborted ? 'aborted' : String(code),
    (end - x.began) / 1000,
  );
  log?.(requestLog(x, code, end));
}

/** One request: its record, its route's answer, and once it is over its log line and metrics. */
function serveRequest(
  service: ServiceState,
  req: IncomingMessage,
  res: ServerResponse,
  inFlight: Set<Promise<void>>,
  log: ServiceOptions['log'],
): void {
  const found = routeOf(new URL(req.url ?? '/', 'http://service').pathname);
  const x = beginExchange(req, res, found?.route.template ?? 'unmatched');
  // Closed before the whole answer was handed to the socket: the client went away first (mid-body,
  // waiting, or while its admitted request ran on).
  const closed = new Promise<void>((resolve) =>
    res.once('close', () => {
      if (!res.writableFinished) {
        service.tally.clientAborts += 1;
        x.clientAborted = true;
      }
      resolve();
    }),
  );
  const done = dispatch(service, req, res, found).catch((error: unknown) => {
    // Reading the body of a client that went away fails; that is its abort, counted above.
    if (res.destroyed) return;
    failed(service, res, error);
  });
  inFlight.add(done);
  void done.finally(() => inFlight.delete(done));
  // Over once its work has ended and its connection let go of the answer (sent, or the client gone).
  void Promise.all([done, closed]).then(() => finished(service, res, x, log));
}

/**
 * `at`: a port to listen on (0: any free one), or the front door of a listener already bound, which has
 * answered 503 STARTING until now (front-door.ts).
 */
export async function startReservationService(
  options: ServiceOptions,
  at: number | FrontDoor = 0,
): Promise<ReservationService> {
  // Bound first: a port that cannot be had leaves no pool or job behind.
  const front = typeof at === 'number' ? new FrontDoor(await listenOn(at)) : at;
  const { server } = front;
  const [reservations, lookups] = await openLanes(options).catch(async (error: unknown) => {
    if (typeof at === 'number') await closeListener(server);
    throw error;
  });
  const metrics = new ServiceMetrics({
    reservations: () => reservations.gate.counters(),
    lookups: () => lookups.gate.counters(),
  });
  const service: ServiceState = {
    strategy: options.strategy,
    workMs: options.workMs,
    reservations,
    lookups,
    metrics,
    tally: { badRequests: 0, databaseErrors: 0, connectionFailures: 0, clientAborts: 0 },
    node: options.node,
    skus: options.skus,
    reset: options.reset,
    counters: () => ({
      ...reservations.gate.counters(),
      ...service.tally,
      lookups: lookups.gate.counters(),
      expiry: expiry.counters(),
    }),
  };
  const expiryPool = openPool(options, '-expiry', 1);
  const expiry = startExpiryJob({
    strategy: options.strategy,
    everyMs: options.expireEveryMs ?? 0,
    pool: expiryPool,
    // Read at every run, so a run after a reset serves under the new incarnation.
    get node() {
      return service.node;
    },
    ended: (run) => metrics.expiryEnded(run),
  });
  const inFlight = new Set<Promise<void>>();
  front.open((req: IncomingMessage, res: ServerResponse) =>
    serveRequest(service, req, res, inFlight, options.log),
  );
  // A keep-alive connection the server drops just as a client reuses it fails that request with a reset
  // (the classic keep-alive race): keep idle connections far longer than any client pause here; close()
  // drops them explicitly.
  server.keepAliveTimeout = 65_000;

  return {
    url: `http://127.0.0.1:${portOf(server)}`,
    gate: reservations.gate,
    counters: service.counters,
    async close() {
      // Nothing more is admitted: new requests are answered 503 DRAINING while these finish.
      front.drain();
      // No new run starts; one in progress ends on its own connection before the pools close.
      const expiryStopped = expiry.stop();
      await Promise.all([...inFlight]);
      const closed = closeListener(server);
      // Keep-alive connections whose last response just went out would otherwise hold close() open.
      server.closeIdleConnections();
      await closed;
      await expiryStopped;
      await Promise.all([reservations.pool.end(), lookups.pool.end(), expiryPool.end()]);
      await Promise.all([reservations.gate.close(), lookups.gate.close()]);
    },
  };
}
