/**
 * What one request to the reservation service did, filled in as it goes (its route, key or sku, the gate's
 * ticket, its answer), and the line `serve --log-json` prints for it once it is over. Every answer goes out
 * through `send` here, so the record keeps the first answer a request got, even when its client had gone
 * and nothing could be sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ticket } from '../gate/admission.ts';

/** One request, as `--log-json` prints it. */
export interface RequestLog {
  time: string;
  method: string;
  /** The route's template (`/confirm/{request_key}`), or `unmatched`. */
  route: string;
  request_key: string | null;
  sku: string | null;
  /**
   * The HTTP status code answered; null when the client went away before its answer (`client_aborted`):
   * no code reached it, and `outcome`/`status` say what the service did all the same.
   */
  code: number | null;
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

/** The request's record, for its log line and the metrics. */
export interface Exchange {
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

/** Starts the record of a request that has just arrived on `route` (a template, or `unmatched`). */
export function beginExchange(req: IncomingMessage, res: ServerResponse, route: string): Exchange {
  const x: Exchange = { began: performance.now(), method: req.method ?? '', route };
  exchanges.set(res, x);
  return x;
}

/** The request's record; a response the server did not create (none here) gets a throwaway one. */
export function exchange(res: ServerResponse): Exchange {
  return exchanges.get(res) ?? { began: performance.now(), method: '', route: 'unmatched' };
}

/** Hands the answer to the socket (unless the client is gone) and notes it in the request's record. */
export function send(res: ServerResponse, code: number, headers: Record<string, string>, body: string): void {
  const x = exchanges.get(res);
  if (x && x.answeredAt === undefined) {
    x.code = code;
    x.answeredAt = performance.now();
  }
  if (res.destroyed) return;
  res.writeHead(code, headers);
  res.end(body);
}

/** An answer in the API's form: `key=value` lines (docs/http-api.md). */
export function reply(
  res: ServerResponse,
  code: number,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): void {
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

/** The request's `--log-json` line, once it is over with `code`, answered at `end`. */
export function requestLog(x: Exchange, code: number, end: number): RequestLog {
  return {
    time: new Date().toISOString(),
    method: x.method,
    route: x.route,
    request_key: x.requestKey ?? null,
    sku: x.sku ?? null,
    code: x.clientAborted ? null : code,
    outcome: x.outcome ?? null,
    status: x.status ?? null,
    latency_ms: Math.round((end - x.began) * 1000) / 1000,
    admission_wait_ms: x.waitMs === undefined ? null : Math.round(x.waitMs * 1000) / 1000,
    admission: x.ticket ?? null,
    client_aborted: x.clientAborted ?? false,
  };
}
