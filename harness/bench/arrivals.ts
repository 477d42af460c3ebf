/**
 * The open model's arrival schedule: when each arrival is due, in ms after the schedule's start. Constant
 * spaces them 1/rate apart; Poisson draws exponential gaps of mean 1/rate from a seeded generator, so that
 * a seed gives the same arrivals on every run and in every worker thread (each takes its share of one
 * sequence, not a sequence of its own).
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export const ARRIVAL_KINDS = ['constant', 'poisson'] as const;
export type ArrivalKind = (typeof ARRIVAL_KINDS)[number];

export interface ArrivalSettings {
  /** Arrivals per second over the whole series, all threads together. */
  rate: number;
  arrivals: ArrivalKind;
  seed: number;
}

/** Yields the due time (ms from the start) of arrival 0, 1, 2, … of the whole series. */
export function* arrivalTimes({ rate, arrivals, seed }: ArrivalSettings): Generator<number, never> {
  const meanGapMs = 1000 / rate;
  if (arrivals === 'constant') {
    // Multiplied rather than summed, so that no rounding error accumulates over a long window.
    for (let i = 0; ; i++) yield i * meanGapMs;
  }
  const rng = xoroshiro128plus(seed);
  for (let at = 0; ; ) {
    yield at;
    // 1 - u lies in (0, 1], so the logarithm is finite.
    at += -Math.log(1 - uniformFloat64(rng)) * meanGapMs;
  }
}

/** Every `stride`-th arrival from `first` on: one thread's share of the series' schedule. */
export function* shareOfArrivals(
  settings: ArrivalSettings,
  first: number,
  stride: number,
): Generator<number, never> {
  const all = arrivalTimes(settings);
  for (let i = 0; ; i++) {
    const at = all.next().value;
    if (i % stride === first) yield at;
  }
}
