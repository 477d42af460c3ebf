/**
 * The reservation service over HTTP (seed 000 "接口"), in front of any strategy, behind bounded admission.
 *
 * POST /reserve → 201 HELD, 200 REPLAY, 409 SOLD_OUT | USER_LIMIT, 422 KEY_REUSED, 400 BAD_REQUEST,
 * 503 REJECTED_QUEUE_FULL | REJECTED_WAIT_TIMEOUT with Retry-After: 1; GET /reservations/{key} → 200 status,
 * 404 NOT_FOUND, 400 for a key no reservation can have, or the same 503s; GET /admission → the gates'
 * counters as JSON. A 503 is only returned before the request touched the database, so a client may retry
 * with the same key without asking first. Node's http server hands each request straight to the handler
 * (no executor with a hidden queue). Reservations and lookups each pass a gate of their own (same bounds)
 * onto a pool of their own with exactly `limit` connections, so the only queues in front of the database
 * are the gates' bounded ones, and a flood of lookups never holds a connection an admitted reservation
 * waits for. Once admitted, a request runs to its end even if its client has gone.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as work } from 'node:timers/promises';
import pg from 'pg';
import type { IsolationLevel, NodeIdentity, Outcome, Strategy } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { oneLine } from '../errors.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import { Admission, type AdmissionCounters, type AdmissionSettings, type Ticket } from './admission.ts';
import { checkReserveBody, isRequestKey, readBody } from './reserve-body.ts';

export interface ServiceOptions {
  strategy: Strategy;
  connectionString: string;
  schema?: string;
  /** The pool's default_transaction_isolation (`run --isolation`). */
  isolation?: IsolationLevel;
  admission: AdmissionSettings;
  /** Extra work per admitted request before its transaction (seed C28-05: 30 ms; C28-06: 600 ms). */
  workMs: number;
  node: NodeIdentity;
}

export interface ServiceCounters extends AdmissionCounters {
  badRequests: number;
  /** Requests whose strategy call failed (or answered outside the contract): 500. */
  databaseErrors: number;
  /** Requests whose client went away before the whole answer was sent. */
  clientAborts: number;
  /** The lookups' own gate. */
  lookups: AdmissionCounters;
}

export interface ReservationService {
  url: string;
  counters(): ServiceCounters;
  /** Stops accepting, lets admitted requests finish, closes both pools. */
  close(): Promise<void>;
}

const STATUS_OF: Record<Outcome, number> = {
  HELD: 201,
  REPLAY: 200,
  SOLD_OUT: 409,
  USER_LIMIT: 409,
  KEY_REUSED: 422,
  BAD_REQUEST: 400,
  // Nothing was written: the client may try again with the same key.
  GAVE_UP: 503,
};

function reply(
  res: ServerResponse,
  code: number,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const body = `${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;
  if (res.destroyed) return;
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}

/** One kind of request's way to the database: its gate, and a pool with a connection per permit. */
interface Lane {
  gate: Admission;
  pool: pg.Pool;
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
  const lane = (role: string): Lane => {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.admission.limit,
      application_name: `reservebench-service${role}`,
      ...(options.schema
        ? { options: sessionOptions({ schema: options.schema, isolation: options.isolation }) }
        : {}),
    });
    pool.on('error', () => undefined);
    return { gate: new Admission(options.admission), pool };
  };
  const reservations = lane('');
  const lookups = lane('-lookups');
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
  });

  const refuse = (res: ServerResponse, reason: string, headers: Record<string, string> = {}) => {
    badRequests += 1;
    reply(res, 400, { outcome: 'BAD_REQUEST', reason }, headers);
  };

  /** Runs `work` on one of the lane's connections once its gate admits it; 503 before the database if not. */
  const admitted = async (way: Lane, res: ServerResponse, work: (client: pg.PoolClient) => Promise<void>) => {
    const ticket = await way.gate.enter();
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
    await admitted(reservations, res, async (client) => {
      if (options.workMs > 0) await work(options.workMs);
      const answer = checkAnswer(
        await strategy.reserve(
          { db: client, pause: async () => undefined, node: options.node },
          checked.request,
        ),
      );
      if ('problem' in answer) throw new Error(answer.problem);
      const { outcome, status } = answer.answer;
      reply(res, STATUS_OF[outcome], { outcome, ...(status ? { status } : {}) });
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://service').pathname;
    const lookup = /^\/reservations\/([^/]+)$/.exec(path)?.[1];
    if (path === '/reserve') {
      if (req.method !== 'POST')
        return reply(res, 405, { outcome: 'BAD_REQUEST', reason: 'use POST' }, { allow: 'POST' });
      return reserve(req, res);
    }
    if (path === '/admission' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify(counters())}\n`);
      return;
    }
    if (lookup !== undefined) {
      if (req.method !== 'GET')
        return reply(res, 405, { outcome: 'BAD_REQUEST', reason: 'use GET' }, { allow: 'GET' });
      const key = decodedKey(lookup);
      if (key === undefined || !isRequestKey(key)) return refuse(res, 'malformed request_key');
      return admitted(lookups, res, async (client) => {
        const found = await strategy.status(client, key);
        reply(res, found === 'NOT_FOUND' ? 404 : 200, { status: found });
      });
    }
    return reply(res, 404, { outcome: 'BAD_REQUEST', reason: 'unknown path' });
  };

  const server: Server = createServer((req, res) => {
    // Closed before the whole answer was handed to the socket: the client went away first (mid-body,
    // waiting, or while its admitted request ran on).
    res.once('close', () => {
      if (!res.writableFinished) clientAborts += 1;
    });
    const done = handle(req, res).catch((error: unknown) => {
      // Reading the body of a client that went away fails; that is its abort, counted above.
      if (res.destroyed) return;
      databaseErrors += 1;
      reply(res, 500, { outcome: 'ERROR', reason: oneLine(error).replace(/\s+/g, ' ') });
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
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
      await Promise.all([...inFlight]);
      // Keep-alive connections whose last response just went out would otherwise hold close() open.
      server.closeIdleConnections();
      await closed;
      await Promise.all([reservations.pool.end(), lookups.pool.end()]);
    },
  };
}
