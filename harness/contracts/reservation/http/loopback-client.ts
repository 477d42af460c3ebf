/**
 * The HTTP client of the scenarios and tests: form POSTs and GETs over loopback, `key=value` answers. On
 * node:http with one keep-alive agent (connections reused, as fetch's pool reuses them): `http` sends
 * hundreds of requests a case, 503s retried, and fetch's own machinery cost several times node:http's CPU
 * per request, on the cores the service and the server need.
 */
import { Agent, request } from 'node:http';
import type { ReserveRequest } from '../../../../strategies/contract.ts';

export interface HttpAnswer {
  code: number;
  fields: Record<string, string>;
  retryAfter: string | null;
}

export function reserveForm(request: ReserveRequest): string {
  return new URLSearchParams({
    request_key: request.requestKey,
    user: request.user,
    sku: request.sku,
    ttl_ms: String(request.ttlMs),
  }).toString();
}

/** The API's answer body: `key=value` lines (other lines ignored). */
export function parseFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) fields[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return fields;
}

/** Idle connections wait for the next request; they never keep the process alive (the agent unrefs them). */
const agent = new Agent({ keepAlive: true });

/** One request, its whole answer read: the code, the `key=value` fields, Retry-After. */
function exchange(method: 'GET' | 'POST', url: string, form?: string): Promise<HttpAnswer> {
  const headers = form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' };
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('error', reject);
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        resolve({ code: res.statusCode ?? 0, fields: parseFields(text), retryAfter: retryAfter ?? null });
      });
    });
    sent.on('error', reject);
    sent.end(form);
  });
}

export function postReserve(baseUrl: string, request: ReserveRequest): Promise<HttpAnswer> {
  return exchange('POST', `${baseUrl}/reserve`, reserveForm(request));
}

export function getReservation(baseUrl: string, requestKey: string): Promise<HttpAnswer> {
  return exchange('GET', `${baseUrl}/reservations/${encodeURIComponent(requestKey)}`);
}

/** POST /confirm/{key} or /release/{key}: no body. */
export function postEnd(
  baseUrl: string,
  verb: 'confirm' | 'release',
  requestKey: string,
): Promise<HttpAnswer> {
  return exchange('POST', `${baseUrl}/${verb}/${encodeURIComponent(requestKey)}`);
}

export function getStock(baseUrl: string, sku: string): Promise<HttpAnswer> {
  return exchange('GET', `${baseUrl}/stock/${encodeURIComponent(sku)}`);
}
