/**
 * A random step's pause (fast-check): now and then stopped at one of the design's pause points and
 * committed, rolled back or killed there; none where the design declares no point.
 */
import fc from 'fast-check';
import type { StepPause } from './schedule.ts';

/** `abortWeight`: how often a rollback or a kill is drawn against 3 for a commit. */
export function pauseArbitrary<P extends string>(
  points: readonly P[],
  abortWeight: number,
): fc.Arbitrary<StepPause<P> | undefined> {
  if (points.length === 0) return fc.constant(undefined);
  const pause = fc.record({
    at: fc.constantFrom(...points),
    // Mostly committed: a race is lost at the commit; a rollback or a kill at the point is the rarer path.
    resume: fc.oneof(
      { arbitrary: fc.constant('commit' as const), weight: 3 },
      { arbitrary: fc.constantFrom('rollback' as const, 'kill' as const), weight: abortWeight },
    ),
  });
  return fc.option(pause, { nil: undefined, freq: 2 });
}
