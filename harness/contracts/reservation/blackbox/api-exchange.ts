/**
 * The harness's side of the reservation API (docs/http-api.md) for a black box: one exchange is one HTTP
 * request and its whole answer, recorded with its endpoint, status code and latency. A 503 with
 * Retry-After is sent again, unchanged (same request_key), after the time it asks for — bounded, and every
 * retry counted. Answers are `key=value` lines, as `serve` writes them.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { oneLine } from '../../../errors.ts';
import { parseFields } from '../http/loopback-client.ts';
import type { Endpoint, ExchangeLog } from './exchange-log.ts';

/** Attempts per request when the service keeps answering 503 + Retry-After. */
export const MAX_503_ATTEMPTS = 20;
/** The longest wait a Retry-After may ask for before the next attempt. */
export const MAX_RETRY_WAIT_MS = 5_000;

export interface ApiAnswer {
  code: number;
  fields: Record<string, string>;
  /** The media type the service answered with (for messages about a service that does not speak the API). */
  contentType: string;
  /** 503s retried before this answer. */
  retried: number;
  /** The last answer was a 503 with Retry-After that was not retried any more (attempts used up). */
  exhausted: boolean;
}

/** An exchange that got no HTTP answer (refused, reset, timed out); `why` is the cause alone. */
export class NoAnswer extends Error {
  constructor(
    message: string,
    readonly why: string,
  ) {
    super(message);
  }
}

/** Retry-After in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export interface ExchangeOptions {
  endpoint: Endpoint;
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  /** Give up on one exchange after this long. */
  timeoutMs: number;
  /** Retry a 503 that carries Retry-After (every API call does; the setup probe does not). */
  retry503: boolean;
  /** Told about each retry, as a strategy tells the harness (ctx.retried). */
  onRetry?: () => void;
}

export async function exchange(log: ExchangeLog, options: ExchangeOptions): Promise<ApiAnswer> {
  let retried = 0;
  for (let attempt = 1; ; attempt++) {
    const began = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(options.url, {
        method: options.method,
        ...(options.body !== undefined
          ? { body: options.body, headers: { 'content-type': options.contentType ?? 'application/json' } }
          : {}),
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'manual',
      });
      text = await response.text();
    } catch (error: unknown) {
      log.record({ endpoint: options.endpoint, code: 'network', ms: performance.now() - began });
      const cause = (error as { cause?: unknown }).cause;
      const why = cause instanceof Error ? `${oneLine(error)} (${oneLine(cause)})` : oneLine(error);
      throw new NoAnswer(`${options.endpoint}: no HTTP answer from ${options.url}: ${why}`, why);
    }
    const ms = performance.now() - began;
    const after = response.status === 503 ? retryAfterMs(response.headers.get('retry-after')) : undefined;
    const again = options.retry503 && after !== undefined && attempt < MAX_503_ATTEMPTS;
    log.record({
      endpoint: options.endpoint,
      code: String(response.status),
      ms,
      ...(again ? { retried: true } : {}),
    });
    if (again) {
      retried += 1;
      options.onRetry?.();
      await wait(Math.min(after, MAX_RETRY_WAIT_MS));
      continue;
    }
    return {
      code: response.status,
      fields: parseFields(text),
      contentType: response.headers.get('content-type') ?? '',
      retried,
      exhausted: after !== undefined && options.retry503,
    };
  }
}

/** `500 outcome=ERROR reason=…`: an answer, in one line, for a message. */
export function shownAnswer(answer: ApiAnswer): string {
  const fields = Object.entries(answer.fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return `${answer.code}${fields ? ` ${fields}` : answer.contentType ? ` (${answer.contentType})` : ''}`.slice(
    0,
    200,
  );
}
