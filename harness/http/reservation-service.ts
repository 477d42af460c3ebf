/**
 * The reservation service over HTTP (seed 000 "接口"), in front of any strategy, behind bounded admission.
 *
 * POST /reserve → 201 HELD, 200 REPLAY, 409 SOLD_OUT | USER_LIMIT, 422 KEY_REUSED, 400 BAD_REQUEST,
 * 503 REJECTED_QUEUE_FULL | REJECTED_WAIT_TIMEOUT with Retry-After: 1; GET /reservations/{key} → 200 status
 * or 404 NOT_FOUND; GET /admission → the gate's counters as JSON. A 503 is only returned before the request touched the database, so a client may retry
 * with the same key without asking first. Node's http server hands each request straight to the handler
 * (no executor with a hidden queue), and the connection pool has exactly `limit` connections, so the only
 * queue in front of the database is admission's bounded one. Once admitted, a request runs to its end
 * even if its client has gone.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as work } from 'node:timers/promises';
import pg from 'pg';
import type { IsolationLevel, NodeIdentity, Outcome, Strategy } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { oneLine } from '../errors.ts';
import { Admission, type AdmissionCounters, type AdmissionSettings } from './admission.ts';
import { checkReserveBody, readBody } from './reserve-body.ts';

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

export interface ReservationService {
  url: string;
  counters(): AdmissionCounters & { badRequests: number; databaseErrors: number };
  /** Stops accepting, lets admitted requests finish, closes the pool. */
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

export async function startReservationService(
  options: ServiceOptions,
  port = 0,
): Promise<ReservationService> {
  const { strategy } = options;
  const gate = new Admission(options.admission);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.admission.limit,
    application_name: 'reservebench-service',
    ...(options.schema
      ? { options: sessionOptions({ schema: options.schema, isolation: options.isolation }) }
      : {}),
  });
  pool.on('error', () => undefined);
  let badRequests = 0;
  let databaseErrors = 0;
  const inFlight = new Set<Promise<void>>();

  const reserve = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if ('tooLarge' in body) {
      badRequests += 1;
      reply(res, 400, { outcome: 'BAD_REQUEST', reason: 'body too large' }, { connection: 'close' });
      req.destroy();
      return;
    }
    const checked = checkReserveBody(body.text, req.headers['content-type'] ?? '');
    if (!checked.ok) {
      badRequests += 1;
      reply(res, 400, { outcome: 'BAD_REQUEST', reason: checked.reason });
      return;
    }
    const ticket = await gate.enter();
    if (ticket === 'REJECTED_QUEUE_FULL' || ticket === 'REJECTED_WAIT_TIMEOUT') {
      reply(res, 503, { outcome: ticket }, { 'retry-after': '1' });
      return;
    }
    try {
      if (options.workMs > 0) await work(options.workMs);
      const client = await pool.connect();
      try {
        const answer = await strategy.reserve(
          { db: client, pause: async () => undefined, node: options.node },
          checked.request,
        );
        reply(res, STATUS_OF[answer.outcome], {
          outcome: answer.outcome,
          ...(answer.status ? { status: answer.status } : {}),
        });
      } finally {
        client.release();
      }
    } catch (error: unknown) {
      databaseErrors += 1;
      reply(res, 500, { outcome: 'ERROR', reason: oneLine(error).replace(/\s+/g, ' ') });
    } finally {
      gate.exit();
    }
  };

  const status = async (res: ServerResponse, key: string) => {
    const client = await pool.connect();
    try {
      const found = await strategy.status(client, key);
      reply(res, found === 'NOT_FOUND' ? 404 : 200, { status: found });
    } finally {
      client.release();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://service').pathname;
    const lookup = /^\/reservations\/([A-Za-z0-9._:@-]{1,128})$/.exec(path);
    if (path === '/reserve') {
      if (req.method !== 'POST')
        return reply(res, 405, { outcome: 'BAD_REQUEST', reason: 'use POST' }, { allow: 'POST' });
      return reserve(req, res);
    }
    if (path === '/admission' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ ...gate.counters(), badRequests, databaseErrors })}\n`);
      return;
    }
    if (lookup?.[1]) {
      if (req.method !== 'GET')
        return reply(res, 405, { outcome: 'BAD_REQUEST', reason: 'use GET' }, { allow: 'GET' });
      return status(res, lookup[1]);
    }
    return reply(res, 404, { outcome: 'BAD_REQUEST', reason: 'unknown path' });
  };

  const server: Server = createServer((req, res) => {
    const done = handle(req, res).catch((error: unknown) => {
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
    counters: () => ({ ...gate.counters(), badRequests, databaseErrors }),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.all([...inFlight]);
      // Keep-alive connections whose last response just went out would otherwise hold close() open.
      server.closeIdleConnections();
      await closed;
      await pool.end();
    },
  };
}
