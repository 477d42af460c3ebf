/**
 * The reservation service over HTTP (seed 000 "接口"), in front of any strategy, behind bounded admission.
 *
 * POST /reserve → 201 HELD, 200 REPLAY, 409 SOLD_OUT | USER_LIMIT, 422 KEY_REUSED, 400 BAD_REQUEST,
 * 503 REJECTED_QUEUE_FULL | REJECTED_WAIT_TIMEOUT with Retry-After: 1; POST /confirm/{key} and
 * POST /release/{key} → 200 CONFIRMED | RELEASED (this call moved the hold), 200 REPLAY (it already had that
 * status), 409 CONFLICT (it had ended otherwise), 404 NOT_FOUND, 501 NOT_IMPLEMENTED when the strategy has
 * no such operation, or the same 503s; GET /reservations/{key} → 200 status, 404 NOT_FOUND, 400 for a key
 * no reservation can have, or the same 503s; GET /stock/{sku} → 200 remaining (the strategy's own
 * `remaining`), 404 for a sku the service does not sell; GET /admission → the gates' and the expiry job's
 * counters as JSON; GET /metrics → the same and more in the Prometheus text format. A 503 is only returned
 * before the request touched the database, so a client may retry with the same key without asking first.
 * Node's http server hands each request straight to the handler (no executor with a hidden queue). Writes
 * (reserve, confirm, release) and reads (reservations, stock) each pass a gate of their own (same bounds)
 * onto a pool of their own with exactly `limit` connections, so the only queues in front of the database
 * are the gates' bounded ones, and a flood of reads never holds a connection an admitted write waits for.
 * The expiry job has one more connection of its own. Once admitted, a request runs to its end even if its
 * client has gone.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as work } from 'node:timers/promises';
import pg from 'pg';
import type {
  IsolationLevel,
  NodeIdentity,
  Outcome,
  ReservationStatus,
  SessionContext,
  StockLine,
  Strategy,
} from '../../strategies/contract.ts';
import { STATUSES } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { oneLine } from '../errors.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import { Admission, type AdmissionCounters, type AdmissionSettings, type Ticket } from './admission.ts';
import { type ExpiryCounters, startExpiryJob } from './expiry-job.ts';
import { checkReserveBody, isRequestKey, readBody } from './reserve-body.ts';
import { checkResetBody } from './reset-body.ts';
import { type GateName, ServiceMetrics } from './service-metrics.ts';

export interface ServiceOptions {
  strategy: Strategy;
  connectionString: string;
  schema?: string;
  /** The pool's default_transaction_isolation (`run --isolation`). */
  isolation?: IsolationLevel;
  admission: AdmissionSettings;
  /**
   * Extra work per admitted write (reserve, confirm, release) before its transaction (seed C28-05: 30 ms;
   * C28-06: 600 ms).
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

/** One request, as `--log-json` prints it. */
export interface RequestLog {
  time: string;
  method: string;
  /** The route's template (`/confirm/{request_key}`), or `unmatched`. */
  route: string;
  request_key: string | null;
  sku: string | null;
  /** The HTTP status code answered (or that would have been, had the client stayed). */
  code: number;
  outcome: string | null;
  status: string | null;
  /** From the request's arrival to its answer being handed to the socket. */
  latency_ms: number;
  /** Time spent at the gate; null for a request that never reached one (bad input, /admission …). */
  admission_wait_ms: number | null;
  /** The gate's ticket (ADMITTED, ADMITTED_AFTER_WAIT, REJECTED_…), null as above. */
  admission: Ticket | null;
  client_aborted: boolean;
}

export interface ServiceCounters extends AdmissionCounters {
  badRequests: number;
  /** Requests whose strategy call failed (or answered outside the contract): 500. */
  databaseErrors: number;
  /** Requests whose client went away before the whole answer was sent. */
  clientAborts: number;
  /** The lookups' own gate (GET /reservations/{key}, GET /stock/{sku}). */
  lookups: AdmissionCounters;
  expiry: ExpiryCounters;
}

export interface ReservationService {
  url: string;
  counters(): ServiceCounters;
  /** Stops accepting and the expiry job, lets admitted requests and a run in progress finish, closes the pools. */
  close(): Promise<void>;
}

/** The status code the API answers each reserve outcome with (docs/http-api.md); a target is held to it. */
export const STATUS_OF: Readonly<Record<Outcome, number>> = {
  HELD: 201,
  REPLAY: 200,
  SOLD_OUT: 409,
  USER_LIMIT: 409,
  KEY_REUSED: 422,
  BAD_REQUEST: 400,
  // Nothing was written: the client may try again with the same key.
  GAVE_UP: 503,
};

/** What one request did, for its log line and the metrics: filled in as the request goes. */
interface Exchange {
  began: number;
  method: string;
  route: string;
  requestKey?: string;
  sku?: string;
  code?: number;
  outcome?: string;
  status?: string;
  answeredAt?: number;
  waitMs?: number;
  ticket?: Ticket;
  clientAborted?: boolean;
}

const exchanges = new WeakMap<ServerResponse, Exchange>();

/** The request's record; a response the server did not create (none here) gets a throwaway one. */
function exchange(res: ServerResponse): Exchange {
  return exchanges.get(res) ?? { began: performance.now(), method: '', route: 'unmatched' };
}

/** Hands the answer to the socket (unless the client is gone) and notes it in the request's record. */
function send(res: ServerResponse, code: number, headers: Record<string, string>, body: string): void {
  const x = exchanges.get(res);
  if (x && x.answeredAt === undefined) {
    x.code = code;
    x.answeredAt = performance.now();
  }
  if (res.destroyed) return;
  res.writeHead(code, headers);
  res.end(body);
}

function reply(
  res: ServerResponse,
  code: number,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const body = `${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;
  const x = exchanges.get(res);
  if (x && x.answeredAt === undefined) {
    x.outcome = fields.outcome;
    x.status = fields.status;
  }
  send(res, code, { 'content-type': 'text/plain; charset=utf-8', ...headers }, body);
}

/** One kind of request's way to the database: its gate, and a pool with a connection per permit. */
interface Lane {
  name: GateName;
  gate: Admission;
  pool: pg.Pool;
}

/** The route templates: the metrics' and the log's `route`, one value per kind of request. */
const ROUTES = [
  ['/reserve', /^\/reserve$/],
  ['/reservations/{request_key}', /^\/reservations\/([^/]+)$/],
  ['/confirm/{request_key}', /^\/confirm\/([^/]+)$/],
  ['/release/{request_key}', /^\/release\/([^/]+)$/],
  ['/stock/{sku}', /^\/stock\/([^/]+)$/],
  ['/admin/reset', /^\/admin\/reset$/],
  ['/admission', /^\/admission$/],
  ['/metrics', /^\/metrics$/],
] as const;
type Route = (typeof ROUTES)[number][0];

function routeOf(path: string): { route: Route; segment: string } | undefined {
  for (const [route, pattern] of ROUTES) {
    const match = pattern.exec(path);
    if (match) return { route, segment: match[1] ?? '' };
  }
  return undefined;
}

/** A status a strategy's `status` answered, checked: anything outside the contract is a 500 naming it. */
const KNOWN_STATUS = new Set<string>([...STATUSES, 'NOT_FOUND']);
function checkedStatus(found: unknown): ReservationStatus | 'NOT_FOUND' {
  if (typeof found !== 'string' || !KNOWN_STATUS.has(found)) {
    throw new Error(`status answered ${JSON.stringify(found) ?? String(found)}, not a status`);
  }
  return found as ReservationStatus | 'NOT_FOUND';
}

const rejected = (ticket: Ticket): ticket is 'REJECTED_QUEUE_FULL' | 'REJECTED_WAIT_TIMEOUT' =>
  ticket === 'REJECTED_QUEUE_FULL' || ticket === 'REJECTED_WAIT_TIMEOUT';

/** `/reservations/{key}` as the client encoded it (`order%3A17` for `order:17`); undefined when malformed. */
function decodedKey(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export async function startReservationService(
  options: ServiceOptions,
  port = 0,
): Promise<ReservationService> {
  const { strategy } = options;
  // A reset (POST /admin/reset) replaces both: the skus sold and the node's incarnation.
  let node = options.node;
  let skus = options.skus;
  const openPool = (role: string, max: number): pg.Pool => {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max,
      application_name: `reservebench-service${role}`,
      ...(options.schema
        ? { options: sessionOptions({ schema: options.schema, isolation: options.isolation }) }
        : {}),
    });
    pool.on('error', () => undefined);
    return pool;
  };
  const lane = (name: GateName, role: string): Lane => ({
    name,
    gate: new Admission(options.admission),
    pool: openPool(role, options.admission.limit),
  });
  const reservations = lane('reservations', '');
  const lookups = lane('lookups', '-lookups');
  const metrics = new ServiceMetrics({
    reservations: () => reservations.gate.counters(),
    lookups: () => lookups.gate.counters(),
  });
  const expiryPool = openPool('-expiry', 1);
  const expiry = startExpiryJob({
    strategy,
    everyMs: options.expireEveryMs ?? 0,
    pool: expiryPool,
    // Read at every run, so a run after a reset serves under the new incarnation.
    get node() {
      return node;
    },
    ended: (run) => metrics.expiryEnded(run),
  });
  let badRequests = 0;
  let databaseErrors = 0;
  let clientAborts = 0;
  const inFlight = new Set<Promise<void>>();
  const counters = (): ServiceCounters => ({
    ...reservations.gate.counters(),
    badRequests,
    databaseErrors,
    clientAborts,
    lookups: lookups.gate.counters(),
    expiry: expiry.counters(),
  });
  const session = (client: pg.PoolClient): SessionContext => ({
    db: client,
    pause: async () => undefined,
    node,
  });

  const refuse = (res: ServerResponse, reason: string, headers: Record<string, string> = {}) => {
    badRequests += 1;
    reply(res, 400, { outcome: 'BAD_REQUEST', reason }, headers);
  };

  /** Runs `work` on one of the lane's connections once its gate admits it; 503 before the database if not. */
  const admitted = async (way: Lane, res: ServerResponse, work: (client: pg.PoolClient) => Promise<void>) => {
    const arrived = performance.now();
    const ticket = await way.gate.enter();
    const waited = performance.now() - arrived;
    const x = exchange(res);
    x.waitMs = waited;
    x.ticket = ticket;
    metrics.admission(way.name, ticket, waited / 1000);
    if (rejected(ticket)) {
      reply(res, 503, { outcome: ticket }, { 'retry-after': '1' });
      return;
    }
    try {
      const client = await way.pool.connect();
      try {
        await work(client);
      } finally {
        client.release();
      }
    } catch (error: unknown) {
      databaseErrors += 1;
      reply(res, 500, { outcome: 'ERROR', reason: oneLine(error).replace(/\s+/g, ' ') });
    } finally {
      way.gate.exit();
    }
  };

  const reserve = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if ('tooLarge' in body) {
      refuse(res, 'body too large', { connection: 'close' });
      req.destroy();
      return;
    }
    const checked = checkReserveBody(body.text, req.headers['content-type'] ?? '');
    if (!checked.ok) return refuse(res, checked.reason);
    Object.assign(exchange(res), { requestKey: checked.request.requestKey, sku: checked.request.sku });
    await admitted(reservations, res, async (client) => {
      if (options.workMs > 0) await work(options.workMs);
      const answer = checkAnswer(await strategy.reserve(session(client), checked.request));
      if ('problem' in answer) throw new Error(answer.problem);
      const { outcome, status } = answer.answer;
      reply(res, STATUS_OF[outcome], { outcome, ...(status ? { status } : {}) });
    });
  };

  /** A body nobody needs (confirm, release) is still read, within the same bound, before the answer. */
  const drained = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (!('tooLarge' in (await readBody(req)))) return true;
    refuse(res, 'body too large', { connection: 'close' });
    req.destroy();
    return false;
  };

  /**
   * POST /confirm/{key} and /release/{key}: the strategy's operation behind the writes' gate. It moves only
   * a HELD row and says whether this call moved it; if not, the status read after it tells a replay (the
   * hold already has the status asked for) from a conflict (it ended otherwise) and from an unknown key.
   */
  const endHold = async (
    verb: 'confirm' | 'release',
    segment: string,
    req: IncomingMessage,
    res: ServerResponse,
  ) => {
    if (!(await drained(req, res))) return;
    const key = decodedKey(segment);
    if (key === undefined || !isRequestKey(key)) return refuse(res, 'malformed request_key');
    exchange(res).requestKey = key;
    if (typeof strategy[verb] !== 'function') {
      return reply(res, 501, {
        outcome: 'NOT_IMPLEMENTED',
        reason: `strategy ${strategy.id} has no ${verb}`,
      });
    }
    const ended: ReservationStatus = verb === 'confirm' ? 'CONFIRMED' : 'RELEASED';
    await admitted(reservations, res, async (client) => {
      if (options.workMs > 0) await work(options.workMs);
      const moved: unknown = await strategy[verb]?.(session(client), key);
      if (typeof moved !== 'boolean') {
        throw new Error(`${verb} answered ${JSON.stringify(moved) ?? String(moved)}, not true or false`);
      }
      if (moved) return reply(res, 200, { outcome: ended, status: ended });
      const now = checkedStatus(await strategy.status(client, key));
      if (now === 'NOT_FOUND') return reply(res, 404, { outcome: 'NOT_FOUND', status: now });
      const replay = now === ended;
      reply(res, replay ? 200 : 409, { outcome: replay ? 'REPLAY' : 'CONFLICT', status: now });
    });
  };

  /**
   * POST /admin/reset: fresh tables with the stock given (a test endpoint, off unless `serve --allow-reset`;
   * see docs/http-api.md). Off: 403 whatever the body, so a client can ask whether it is on with a body
   * that is not a stock list (on: 400, nothing changed). It passes no gate: send it while no other request
   * is in flight.
   */
  const resetTables = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if ('tooLarge' in body) {
      refuse(res, 'body too large', { connection: 'close' });
      req.destroy();
      return;
    }
    if (!options.reset) {
      return reply(res, 403, {
        outcome: 'FORBIDDEN',
        reason: 'reset is off: start serve with --allow-reset',
      });
    }
    const checked = checkResetBody(body.text);
    if (!checked.ok) return refuse(res, checked.reason);
    try {
      node = await options.reset(checked.stock);
      skus = checked.stock.map((line) => line.sku);
    } catch (error: unknown) {
      databaseErrors += 1;
      return reply(res, 500, { outcome: 'ERROR', reason: oneLine(error).replace(/\s+/g, ' ') });
    }
    reply(res, 200, {
      outcome: 'RESET',
      stock: checked.stock.map((line) => `${line.sku}:${line.total}`).join(','),
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, found: ReturnType<typeof routeOf>) => {
    const only = (method: 'GET' | 'POST') =>
      reply(res, 405, { outcome: 'BAD_REQUEST', reason: `use ${method}` }, { allow: method });
    switch (found?.route) {
      case '/reserve':
        return req.method === 'POST' ? reserve(req, res) : only('POST');
      case '/confirm/{request_key}':
        return req.method === 'POST' ? endHold('confirm', found.segment, req, res) : only('POST');
      case '/release/{request_key}':
        return req.method === 'POST' ? endHold('release', found.segment, req, res) : only('POST');
      case '/admission':
        if (req.method !== 'GET') return only('GET');
        return send(res, 200, { 'content-type': 'application/json' }, `${JSON.stringify(counters())}\n`);
      case '/metrics':
        // In memory, like /admission: no gate, so it answers while the gates are full.
        if (req.method !== 'GET') return only('GET');
        return send(res, 200, { 'content-type': metrics.contentType }, await metrics.text());
      case '/reservations/{request_key}': {
        if (req.method !== 'GET') return only('GET');
        const key = decodedKey(found.segment);
        if (key === undefined || !isRequestKey(key)) return refuse(res, 'malformed request_key');
        exchange(res).requestKey = key;
        return admitted(lookups, res, async (client) => {
          const status = checkedStatus(await strategy.status(client, key));
          reply(res, status === 'NOT_FOUND' ? 404 : 200, { status });
        });
      }
      case '/stock/{sku}': {
        if (req.method !== 'GET') return only('GET');
        const sku = decodedKey(found.segment);
        if (sku === undefined || !isRequestKey(sku)) return refuse(res, 'malformed sku');
        exchange(res).sku = sku;
        if (skus && !skus.includes(sku)) {
          return reply(res, 404, { outcome: 'NOT_FOUND', sku, reason: 'the service sells no such sku' });
        }
        return admitted(lookups, res, async (client) => {
          const remaining: unknown = await strategy.remaining(client, sku);
          if (!Number.isSafeInteger(remaining)) {
            throw new Error(`remaining answered ${JSON.stringify(remaining) ?? String(remaining)}`);
          }
          reply(res, 200, { sku, remaining: String(remaining) });
        });
      }
      case '/admin/reset':
        return req.method === 'POST' ? resetTables(req, res) : only('POST');
      default:
        return reply(res, 404, { outcome: 'BAD_REQUEST', reason: 'unknown path' });
    }
  };

  /** The request's line for `--log-json` and its count in the metrics, once it is over. */
  const finished = (res: ServerResponse, x: Exchange) => {
    const code = x.code ?? res.statusCode;
    const end = x.answeredAt ?? performance.now();
    metrics.answered(x.method, x.route, x.clientAborted ? 'aborted' : String(code), (end - x.began) / 1000);
    options.log?.({
      time: new Date().toISOString(),
      method: x.method,
      route: x.route,
      request_key: x.requestKey ?? null,
      sku: x.sku ?? null,
      code,
      outcome: x.outcome ?? null,
      status: x.status ?? null,
      latency_ms: Math.round((end - x.began) * 1000) / 1000,
      admission_wait_ms: x.waitMs === undefined ? null : Math.round(x.waitMs * 1000) / 1000,
      admission: x.ticket ?? null,
      client_aborted: x.clientAborted ?? false,
    });
  };

  const server: Server = createServer((req, res) => {
    const found = routeOf(new URL(req.url ?? '/', 'http://service').pathname);
    const x: Exchange = {
      began: performance.now(),
      method: req.method ?? '',
      route: found?.route ?? 'unmatched',
    };
    exchanges.set(res, x);
    // Closed before the whole answer was handed to the socket: the client went away first (mid-body,
    // waiting, or while its admitted request ran on).
    const closed = new Promise<void>((resolve) =>
      res.once('close', () => {
        if (!res.writableFinished) {
          clientAborts += 1;
          x.clientAborted = true;
        }
        resolve();
      }),
    );
    const done = handle(req, res, found).catch((error: unknown) => {
      // Reading the body of a client that went away fails; that is its abort, counted above.
      if (res.destroyed) return;
      databaseErrors += 1;
      reply(res, 500, { outcome: 'ERROR', reason: oneLine(error).replace(/\s+/g, ' ') });
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
    // Over once its work has ended and its connection let go of the answer (sent, or the client gone).
    void Promise.all([done, closed]).then(() => finished(res, x));
  });
  // A keep-alive connection the server drops just as a client reuses it fails that request with a reset
  // (the classic keep-alive race): keep idle connections far longer than any client pause here; close()
  // drops them explicitly.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;

  return {
    url,
    counters,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // No new run starts; one in progress ends on its own connection before the pools close.
      const expiryStopped = expiry.stop();
      await Promise.all([...inFlight]);
      // Keep-alive connections whose last response just went out would otherwise hold close() open.
      server.closeIdleConnections();
      await closed;
      await expiryStopped;
      await Promise.all([reservations.pool.end(), lookups.pool.end(), expiryPool.end()]);
    },
  };
}
