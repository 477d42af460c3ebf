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

async function answer(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  const fields = Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
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
