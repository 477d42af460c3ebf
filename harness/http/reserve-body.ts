/**
 * Reads and checks a POST /reserve body — form-encoded (`request_key=…&user=…&sku=…&ttl_ms=…`) or JSON —
 * before anything touches the database. Anything missing, malformed or too large is a BAD_REQUEST.
 */
import type { IncomingMessage } from 'node:http';
import type { ReserveRequest } from '../../strategies/contract.ts';

export const MAX_BODY_BYTES = 4096;
const FIELD = /^[A-Za-z0-9._:@-]{1,128}$/;
const MAX_TTL_MS = 24 * 3600 * 1000;

export type BodyCheck =
  | { ok: true; request: ReserveRequest }
  | { ok: false; reason: string; tooLarge?: true };

export async function readBody(req: IncomingMessage): Promise<{ text: string } | { tooLarge: true }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { tooLarge: true };
    chunks.push(chunk as Buffer);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}

function fields(text: string, contentType: string): Record<string, unknown> | undefined {
  if (contentType.startsWith('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  if (contentType === '' || contentType.startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return undefined;
}

export function checkReserveBody(text: string, contentType: string): BodyCheck {
  const body = fields(text, contentType);
  if (!body) return { ok: false, reason: 'body is neither a form nor a JSON object' };
  const pick = (name: string) => {
    const value = body[name];
    return typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  };
  const requestKey = pick('request_key');
  const user = pick('user');
  const sku = pick('sku');
  const ttl = pick('ttl_ms') ?? '60000';
  for (const [name, value] of [
    ['request_key', requestKey],
    ['user', user],
    ['sku', sku],
  ] as const) {
    if (value === undefined || value === '') return { ok: false, reason: `missing ${name}` };
    if (!FIELD.test(value)) return { ok: false, reason: `malformed ${name}` };
  }
  const ttlMs = Number(ttl);
  if (!/^\d+$/.test(ttl) || ttlMs < 1 || ttlMs > MAX_TTL_MS)
    return { ok: false, reason: 'ttl_ms must be 1…86400000' };
  return { ok: true, request: { requestKey: requestKey ?? '', user: user ?? '', sku: sku ?? '', ttlMs } };
}
