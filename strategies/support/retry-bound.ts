/**
 * A retrying design's bound on a reserve's attempts, declared as a knob (`attempts`) and named as its
 * retry bound (Strategy.retryBound): `--param <id>.attempts=…` runs a variant, and the give-up scenario
 * runs the design with the bound at its least, so the path that answers GAVE_UP is driven on purpose.
 */
import type { Strategy } from '../contract.ts';

/** Attempts per request by default: room for a client that loses once per sale made while it tries. */
export const MAX_ATTEMPTS = 300;

/** The knob, its declaration as the retry bound, and how a variant with another bound is built. */
export function attemptsKnob(
  build: (attempts: number) => Strategy,
): Required<Pick<Strategy, 'parameters' | 'configure' | 'retryBound'>> {
  return {
    parameters: {
      attempts: {
        describe: 'attempts per reserve before it answers GAVE_UP (its retry bound)',
        default: MAX_ATTEMPTS,
        min: 1,
        max: 100_000,
      },
    },
    configure: (values) => build(values.attempts ?? MAX_ATTEMPTS),
    retryBound: 'attempts',
  };
}
