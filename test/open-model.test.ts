/**
 * The open model without a server or a clock: the arrival schedule (constant spacing, a Poisson mean and
 * a seed that repeats itself, the threads' shares adding up to the whole), and the accounting of corrected
 * latency, drops, late answers and goodput on made-up times.
 */
import { describe, expect, it } from 'vitest';
import { type ArrivalSettings, arrivalTimes, shareOfArrivals } from '../harness/bench/arrivals.ts';
import {
  DEFAULT_GRACE_MS,
  emptyTally,
  graceMs,
  isDropped,
  mergeTallies,
  type OpenSettings,
  openSeries,
  openTrial,
  recordAnswer,
} from '../harness/bench/open-model.ts';
import type { BenchEntry } from '../harness/bench/run-bench.ts';
import { seriesKey } from '../harness/report/bench/compare.ts';
import { openRows } from '../harness/report/bench/open-tables.ts';

const take = (schedule: Iterator<number>, n: number) =>
  Array.from({ length: n }, () => schedule.next().value);

describe('the arrival schedule', () => {
  it('spaces constant arrivals exactly 1/rate apart, from 0', () => {
    const times = take(arrivalTimes({ rate: 200, arrivals: 'constant', seed: 1 }), 1001);
    expect(times[0]).toBe(0);
    times.slice(1).forEach((at, i) => {
      expect(at - (times[i] ?? 0)).toBeCloseTo(5, 9);
    });
    // No drift from summing: the thousandth arrival is due at exactly 5 s.
    expect(times[1000]).toBe(5000);
  });

  it('draws Poisson gaps whose mean is 1/rate, the same for the same seed and not for another', () => {
    const settings: ArrivalSettings = { rate: 250, arrivals: 'poisson', seed: 42 };
    const times = take(arrivalTimes(settings), 20_001);
    const gaps = times.slice(1).map((at, i) => at - (times[i] ?? 0));
    expect(gaps.every((g) => g >= 0)).toBe(true);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    // 20000 exponential gaps: the standard error of the mean is 4 ms / √20000 ≈ 0.028 ms; 5% is ~7 of them.
    expect(Math.abs(mean - 4) / 4).toBeLessThan(0.05);
    // Exponential, not constant: the gaps vary about as much as they are long (coefficient of variation 1).
    const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
    expect(Math.abs(sd / mean - 1)).toBeLessThan(0.05);
    expect(take(arrivalTimes(settings), 100)).toEqual(times.slice(0, 100));
    expect(take(arrivalTimes({ ...settings, seed: 43 }), 100)).not.toEqual(times.slice(0, 100));
  });

  it('deals every arrival to exactly one thread, in order', () => {
    const settings: ArrivalSettings = { rate: 100, arrivals: 'poisson', seed: 7 };
    const whole = take(arrivalTimes(settings), 300);
    const shares = [0, 1, 2].map((t) => take(shareOfArrivals(settings, t, 3), 100));
    expect(shares.flat().sort((a, b) => a - b)).toEqual([...whole].sort((a, b) => a - b));
    expect(shares[1]).toEqual(whole.filter((_, i) => i % 3 === 1));
  });
});

const settings = (latencyLimitMs: number | null): OpenSettings => ({
  rate: 100,
  arrivals: 'constant',
  seed: 1,
  latencyLimitMs,
});

describe('the open accounting on a fake clock', () => {
  it('measures latency from the due time, so the wait for a free client counts', () => {
    const tally = emptyTally();
    // Due at 100, no client free until 130, answered at 140: 40 ms corrected, 10 ms of service.
    recordAnswer(tally, { dueMs: 100, sentMs: 130, answeredMs: 140 }, true, null);
    expect(tally.correctedMs).toEqual([40]);
    expect(tally.serviceMs).toEqual([10]);
    expect(tally).toMatchObject({ late: 0, goodHeld: 1, dropped: 0 });
  });

  it('drops an arrival taken later than the grace: the latency limit, else the default', () => {
    expect(graceMs(settings(50))).toBe(50);
    expect(graceMs(settings(null))).toBe(DEFAULT_GRACE_MS);
    expect(isDropped(100, 150, 50)).toBe(false);
    expect(isDropped(100, 150.5, 50)).toBe(true);
    expect(isDropped(100, 90, 50)).toBe(false);
  });

  it('counts answers past the limit as late and leaves them out of goodput, as non-HELD answers', () => {
    const tally = emptyTally();
    recordAnswer(tally, { dueMs: 0, sentMs: 0, answeredMs: 50 }, true, 50);
    recordAnswer(tally, { dueMs: 0, sentMs: 45, answeredMs: 51 }, true, 50);
    recordAnswer(tally, { dueMs: 0, sentMs: 0, answeredMs: 10 }, false, 50);
    tally.dropped += 2;
    expect(tally).toMatchObject({ late: 1, goodHeld: 1, dropped: 2 });
    const trial = openTrial(settings(50), mergeTallies([tally, emptyTally()]), 0.5);
    expect(trial).toMatchObject({ offered: 5, sent: 3, dropped: 2, late: 1, goodput: 2 });
    expect(trial.serviceLatency.max).toBe(50);
  });

  it('sums the counts of every trial and takes the median goodput of those that passed', () => {
    const one = openTrial(settings(50), { ...emptyTally(), dropped: 3, goodHeld: 10 }, 1);
    const two = openTrial(settings(50), { ...emptyTally(), dropped: 1, goodHeld: 30 }, 1);
    const series = openSeries(settings(50), [one, two], [two]);
    expect(series).toMatchObject({ offered: 4, dropped: 4, goodput: 30, rate: 100, latencyLimitMs: 50 });
  });
});

describe('open series in reports and compare', () => {
  const open = openTrial(settings(50), emptyTally(), 1);
  it('is never matched with the closed series of the same design and clients, nor another rate', () => {
    const closed = { strategy: 'hot-row', clients: 4, admission: null, durability: 'on' as const };
    const keys = new Set([
      seriesKey(closed),
      seriesKey({ ...closed, open }),
      seriesKey({ ...closed, open: { ...open, rate: 200 } }),
      seriesKey({ ...closed, open: { ...open, latencyLimitMs: null } }),
    ]);
    expect(keys.size).toBe(4);
  });

  it('has a row in the open table only when it is open', () => {
    const entry = {
      strategy: 'hot-row',
      clients: 4,
      durability: 'on',
      latency: { p50: 1, p95: 2, p99: 3, max: 4 },
    };
    const rows = openRows([
      { ...entry, median: { throughput: 90, p99: 3 } } as unknown as BenchEntry,
      { ...entry, median: { throughput: 90, p99: 3 }, open } as unknown as BenchEntry,
    ]);
    expect(rows).toHaveLength(1);
  });
});
