/**
 * The client side of a 503 (the flash-sale lab answers 503 with Retry-After only while the request has not
 * touched the database, so the same key is safe to send again): up to `retries` retries, each after a
 * full-jitter exponential backoff, a uniform draw from 0 to min(cap, base · 2^retry) ms (the AWS architecture
 * blog's "full jitter", which spreads a herd of rejected clients best). The draws come from a generator
 * seeded per share (`--seed`), drawn in the order its clients retry; the backoff is what is under test, never
 * an ordering.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RetryPolicy } from './burst-task.ts';

/**
 * The cap is the flash-sale lab's `Retry-After: 1`; the base a few reserves' worth. `--retries` sets the
 * bound (a client's patience), which decides how many of a big burst give up rather than hear SOLD_OUT.
 */
export const DEFAULT_RETRY: Omit<RetryPolicy, 'seed'> = { retries: 30, baseMs: 5, capMs: 1_000 };

/** Backoff before retry `retry` (0-based) of one share's clients, in ms, drawn in call order. */
export function backoffs(policy: RetryPolicy, share: number): (retry: number) => number {
  // One stream per share (the seed mixed with the share's index), so threads never share a generator.
  const stream = xoroshiro128plus((Math.imul(policy.seed, 0x9e3779b1) + share) | 0);
  return (retry) => uniformFloat64(stream) * Math.min(policy.capMs, policy.baseMs * 2 ** retry);
}
