/**
 * Medians and 95% intervals over a handful of trials. A percentile bootstrap assumes no distribution (a
 * series' throughput across trials is skewed by whatever else the machine did), and its resampling draws
 * from a seeded generator, so rendering the same trials again gives the same interval to the digit.
 * With few trials it is honest rather than tight: with 5 or fewer the interval of a median is simply the
 * lowest to the highest trial.
 */
import { median, quantileSorted, sampleWithReplacement } from 'simple-statistics';

export interface Interval {
  low: number;
  high: number;
}

export const RESAMPLES = 10_000;
const SEED = 0x5eed_17;

/** mulberry32: small, fast, and good enough to pick resampling indices. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function percentileInterval(estimates: number[]): Interval {
  const sorted = estimates.sort((a, b) => a - b);
  return { low: quantileSorted(sorted, 0.025), high: quantileSorted(sorted, 0.975) };
}

/** The 95% percentile-bootstrap interval of the median of `values` (at least one value). */
export function medianInterval(values: readonly number[]): Interval {
  const random = seededRandom(SEED);
  const sample = [...values];
  return percentileInterval(
    Array.from({ length: RESAMPLES }, () => median(sampleWithReplacement(sample, sample.length, random))),
  );
}

/**
 * The 95% interval of median(next) ÷ median(base), resampling each set of trials on its own (the two runs
 * are independent). Undefined when a resampled base median can be 0, where no ratio exists.
 */
export function ratioInterval(base: readonly number[], next: readonly number[]): Interval | undefined {
  if (base.some((v) => v <= 0)) return undefined;
  const random = seededRandom(SEED);
  const b = [...base];
  const n = [...next];
  return percentileInterval(
    Array.from(
      { length: RESAMPLES },
      () =>
        median(sampleWithReplacement(n, n.length, random)) /
        median(sampleWithReplacement(b, b.length, random)),
    ),
  );
}
