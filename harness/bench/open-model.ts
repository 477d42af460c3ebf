/**
 * The open model's accounting, kept free of clocks and connections so it can be checked with made-up
 * times. Arrivals come on a schedule whether or not the server keeps up (k6's constant-arrival-rate), so
 * latency runs from each arrival's due time, not from when a client got round to sending it: the wait for
 * a free client counts (wrk2's correction for coordinated omission). An arrival that no client can take
 * within the grace is dropped and never sent (k6's dropped_iterations, pgbench's skipped transactions);
 * an answer slower than the latency limit is late (pgbench's `--latency-limit`), and goodput counts only
 * the HELD answers within it.
 */
import { median } from 'simple-statistics';
import { type LatencyPercentiles, summarizeLatency } from '../driver/latency.ts';
import type { ArrivalKind } from './arrivals.ts';

/**
 * Without `--latency-limit`, how late an arrival may still be sent: long enough that ordinary queueing for
 * a busy pool shows in the latency, short enough that an overloaded series drops rather than building a
 * backlog it works off after the window.
 */
export const DEFAULT_GRACE_MS = 1000;

/** An open series' settings, as the bench was told them. */
export interface OpenSettings {
  /** Arrivals per second, all clients together. */
  rate: number;
  arrivals: ArrivalKind;
  /** The Poisson schedule's seed (kept for a constant one too, where it changes nothing). */
  seed: number;
  /** Answers slower than this are late; null when not given. */
  latencyLimitMs: number | null;
}

/** What one worker thread counted of the arrivals it took while measuring. */
export interface OpenTally {
  /** From due time to answer, ms, per answer: the corrected latency. */
  correctedMs: number[];
  /** From send to answer, ms, per answer: the service time, what a closed loop reports. */
  serviceMs: number[];
  dropped: number;
  late: number;
  /** HELD answers within the latency limit (every HELD answer without one). */
  goodHeld: number;
}

export const emptyTally = (): OpenTally => ({
  correctedMs: [],
  serviceMs: [],
  dropped: 0,
  late: 0,
  goodHeld: 0,
});

/** How late an arrival may be taken and still sent: pgbench skips what the limit already makes late. */
export const graceMs = (settings: OpenSettings) => settings.latencyLimitMs ?? DEFAULT_GRACE_MS;

/** Whether an arrival due at `dueMs`, taken by a free client at `takenMs`, is dropped unsent. */
export const isDropped = (dueMs: number, takenMs: number, grace: number) => takenMs - dueMs > grace;

/** Counts one answer: its corrected and service latency, late or within the limit. */
export function recordAnswer(
  tally: OpenTally,
  times: { dueMs: number; sentMs: number; answeredMs: number },
  held: boolean,
  latencyLimitMs: number | null,
): void {
  const corrected = times.answeredMs - times.dueMs;
  tally.correctedMs.push(corrected);
  tally.serviceMs.push(times.answeredMs - times.sentMs);
  const late = latencyLimitMs !== null && corrected > latencyLimitMs;
  if (late) tally.late += 1;
  else if (held) tally.goodHeld += 1;
}

export function mergeTallies(tallies: readonly OpenTally[]): OpenTally {
  return {
    correctedMs: tallies.flatMap((t) => t.correctedMs),
    serviceMs: tallies.flatMap((t) => t.serviceMs),
    dropped: tallies.reduce((acc, t) => acc + t.dropped, 0),
    late: tallies.reduce((acc, t) => acc + t.late, 0),
    goodHeld: tallies.reduce((acc, t) => acc + t.goodHeld, 0),
  };
}

/** An open series' trial: the settings, then what became of its arrivals in the measured window. */
export interface OpenTrial extends OpenSettings {
  /** Arrivals taken in the measured window: sent + dropped. */
  offered: number;
  sent: number;
  dropped: number;
  /** Answers slower than the latency limit (0 without one). */
  late: number;
  /** HELD answers within the latency limit per second of the measured window. */
  goodput: number;
  /** From send to answer, the service time: what the closed loop would report. */
  serviceLatency: LatencyPercentiles;
}

const tenths = (x: number) => Math.round(x * 10) / 10;
const hundredths = (x: number) => Math.round(x * 100) / 100;

/** What became of a trial's arrivals, counted (summed over threads or over agents). */
export interface OpenCounts {
  sent: number;
  dropped: number;
  late: number;
  goodHeld: number;
}

/** The counts of a tally: one per answer sent, and the drops, late answers and good HELDs. */
export const openCounts = (tally: OpenTally): OpenCounts => ({
  sent: tally.correctedMs.length,
  dropped: tally.dropped,
  late: tally.late,
  goodHeld: tally.goodHeld,
});

/** A trial from its counts and its service-time percentiles, over a measured window of `seconds`. */
export function openTrialOf(
  settings: OpenSettings,
  counts: OpenCounts,
  serviceLatency: LatencyPercentiles,
  seconds: number,
): OpenTrial {
  return {
    ...settings,
    offered: counts.sent + counts.dropped,
    sent: counts.sent,
    dropped: counts.dropped,
    late: counts.late,
    goodput: seconds > 0 ? tenths(counts.goodHeld / seconds) : 0,
    serviceLatency,
  };
}

export function openTrial(settings: OpenSettings, tally: OpenTally, seconds: number): OpenTrial {
  return openTrialOf(settings, openCounts(tally), summarizeLatency(tally.serviceMs), seconds);
}

/** A series over its trials: counts summed over all, goodput and service percentiles the passed' medians. */
export function openSeries(
  settings: OpenSettings,
  all: readonly OpenTrial[],
  passed: readonly OpenTrial[],
): OpenTrial {
  const mid = (value: (t: OpenTrial) => number, round = hundredths) =>
    passed.length > 0 ? round(median(passed.map(value))) : 0;
  const sum = (value: (t: OpenTrial) => number) => all.reduce((acc, t) => acc + value(t), 0);
  return {
    ...settings,
    offered: sum((t) => t.offered),
    sent: sum((t) => t.sent),
    dropped: sum((t) => t.dropped),
    late: sum((t) => t.late),
    goodput: mid((t) => t.goodput, tenths),
    serviceLatency: {
      p50: mid((t) => t.serviceLatency.p50),
      p95: mid((t) => t.serviceLatency.p95),
      p99: mid((t) => t.serviceLatency.p99),
      max: Math.max(0, ...passed.map((t) => t.serviceLatency.max)),
    },
  };
}
