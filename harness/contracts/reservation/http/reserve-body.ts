/**
 * Reads and checks a POST /reserve body — form-encoded (`request_key=…&user=…&sku=…&ttl_ms=…`) or JSON —
 * before anything touches the database. Anything missing, of the wrong type, malformed or too large is a
 * BAD_REQUEST with a reason; the check never throws, whatever the body.
 */
import type { IncomingMessage } from 'node:http';
import type { ReserveRequest } from '../../../../strategies/contract.ts';

export const MAX_BODY_BYTES = 4096;
const FIELD = /^[A-Za-z0-9._:@-]{1,128}$/;
const MAX_TTL_MS = 24 * 3600 * 1000;
const DEFAULT_TTL_MS = 60_000;

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

/**
 * Whether `key` can be a request key: the field's characters, and not `.` or `..`, which URL
 * normalisation turns into another path, so `GET /reservations/{key}` could never find them.
 */
export function isRequestKey(key: string): boolean {
  return FIELD.test(key) && key !== '.' && key !== '..';
}

function fields(text: string, contentType: string): Record<string, unknown> | undefined {
  const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (media === 'application/json') {
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  if (media === '' || media === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return undefined;
}

/** A field as text: a string, or a whole JSON number; absent is `undefined`, anything else `null`. */
function textOf(body: Record<string, unknown>, name: string): string | null | undefined {
  if (!Object.hasOwn(body, name)) return undefined;
  const value = body[name];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
}

export function checkReserveBody(text: string, contentType: string): BodyCheck {
  const body = fields(text, contentType);
  if (!body) return { ok: false, reason: 'body is neither a form nor a JSON object' };
  const values: Record<'request_key' | 'user' | 'sku', string> = { request_key: '', user: '', sku: '' };
  for (const name of ['request_key', 'user', 'sku'] as const) {
    const value = textOf(body, name);
    if (value === undefined || value === '') return { ok: false, reason: `missing ${name}` };
    if (value === null) return { ok: false, reason: `${name} must be a string` };
    if (!(name === 'request_key' ? isRequestKey(value) : FIELD.test(value))) {
      return { ok: false, reason: `malformed ${name}` };
    }
    values[name] = value;
  }
  const ttl = textOf(body, 'ttl_ms');
  const ttlMs = ttl === undefined ? DEFAULT_TTL_MS : ttl !== null && /^\d{1,9}$/.test(ttl) ? Number(ttl) : 0;
  if (ttlMs < 1 || ttlMs > MAX_TTL_MS) return { ok: false, reason: `ttl_ms must be 1…${MAX_TTL_MS}` };
  return {
    ok: true,
    request: { requestKey: values.request_key, user: values.user, sku: values.sku, ttlMs },
  };
}
