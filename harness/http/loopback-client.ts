/** The HTTP client of the scenarios and tests: form POSTs and GETs over loopback, `key=value` answers. */
import type { ReserveRequest } from '../../strategies/contract.ts';

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

async function answer(response: Response): Promise<HttpAnswer> {
  const fields = parseFields(await response.text());
  return { code: response.status, fields, retryAfter: response.headers.get('retry-after') };
}

export async function postReserve(baseUrl: string, request: ReserveRequest): Promise<HttpAnswer> {
  return answer(
    await fetch(`${baseUrl}/reserve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: reserveForm(request),
    }),
  );
}

export async function getReservation(baseUrl: string, requestKey: string): Promise<HttpAnswer> {
  return answer(await fetch(`${baseUrl}/reservations/${encodeURIComponent(requestKey)}`));
}

/** POST /confirm/{key} or /release/{key}: no body. */
export async function postEnd(
  baseUrl: string,
  verb: 'confirm' | 'release',
  requestKey: string,
): Promise<HttpAnswer> {
  return answer(await fetch(`${baseUrl}/${verb}/${encodeURIComponent(requestKey)}`, { method: 'POST' }));
}

export async function getStock(baseUrl: string, sku: string): Promise<HttpAnswer> {
  return answer(await fetch(`${baseUrl}/stock/${encodeURIComponent(sku)}`));
}
