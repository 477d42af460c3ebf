/**
 * Waiting on observed state: look at something (a backend in pg_stat_activity, a member's role, a row
 * written by an agent) again and again until it is there, or a deadline passes. The pause between two
 * looks only says how often the state is read again; no ordering ever depends on it.
 */
import { setTimeout as nextLook } from 'node:timers/promises';

/** How often a case looks again at what it waits on (a backend gone, a lock wait) unless told otherwise. */
export const CASE_POLL_MS = 5;

export interface PollSchedule {
  /** How long to keep looking; 0: one look. */
  timeoutMs: number;
  /** The pause between two looks. */
  everyMs: number;
  /** Once settled, ends the pause: the next look is taken at once (what it looks for may be there now). */
  wake?: Promise<unknown>;
}

/**
 * Calls `look` until it returns something (neither undefined nor false) and returns that; undefined once
 * `timeoutMs` has passed with nothing seen. A look that throws ends the wait with its error.
 */
export async function pollUntil<T>(
  look: () => Promise<T | undefined | false>,
  { timeoutMs, everyMs, wake }: PollSchedule,
): Promise<T | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const seen = await look();
    if (seen !== undefined && seen !== false) return seen;
    if (performance.now() >= deadline) return undefined;
    await (wake ? Promise.race([wake, nextLook(everyMs)]) : nextLook(everyMs));
  }
}

/**
 * Looks at `seen` until it holds, or throws `what` once `timeoutMs` has passed. A look that fails (a
 * member not answering yet) counts as not seen.
 */
export async function waitUntil(
  what: string,
  timeoutMs: number,
  seen: () => Promise<boolean>,
  everyMs = 10,
): Promise<void> {
  const held = await pollUntil(() => seen().catch(() => false), { timeoutMs, everyMs });
  if (!held) throw new Error(`${what}: not seen within ${timeoutMs} ms`);
}
