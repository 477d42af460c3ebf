/**
 * A synthetic history's operation in time (the checker's tests and benchmarks), whatever the contract: the
 * i-th operation is due at i×10 ms and starts and ends up to `overlap` steps of 10 ms either side, so that
 * neighbours overlap; one that did not end ok has no completion, its window on the database left open.
 */
import type { Ending } from './history.ts';

/** How a synthetic operation ended: answered, rolled back, or cut off with no answer. */
export type SyntheticEnding = 'ok' | 'unknown' | 'aborted';

/** The operation's times and ending; draws two numbers from `random`, the start's first. */
export function syntheticTiming<A>(
  random: () => number,
  i: number,
  overlap: number,
  kind: SyntheticEnding,
  answer: A,
) {
  const at = i * 10;
  const invokedAt = at - Math.floor(random() * overlap) * 10 - 1;
  const completedAt = at + Math.floor(random() * overlap) * 10 + 1;
  const ending: Ending<A> =
    kind === 'ok'
      ? { kind: 'ok', answer }
      : kind === 'aborted'
        ? { kind: 'aborted' }
        : { kind: 'unknown', why: 'cut off' };
  return {
    invokedAt,
    completedAt: kind === 'ok' ? completedAt : null,
    db: { from: invokedAt, to: kind === 'ok' ? completedAt : null },
    ending,
  };
}
