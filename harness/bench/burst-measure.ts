/**
 * What a burst measured, from the records alone (every time from the release instant), and the judgement
 * of it against the harness's own final read. Pure functions, so that a fixture of records can break each
 * check on its own.
 */
import { type LatencyPercentiles, summarizeLatency } from '../driver/latency.ts';
import { type BurstRecord, GAVE_UP } from './burst-task.ts';

export interface BurstMeasures {
  /** Release to the answer that took the last unit; null when the units did not all go. */
  soldOutMs: number | null;
  /** Release to the last answer of all. */
  answeredMs: number;
  /** Of every request, release to its answer (ms). */
  latency: LatencyPercentiles;
  answered: number;
  outcomes: Record<string, number>;
  /** 503s retried by their clients, over all requests. */
  retries: number;
  errors: Record<string, number>;
  /** Of the first `firstArrivals` requests to arrive (min(stock, requests)), how many got a unit. */
  fairness: { firstArrivals: number; held: number };
  /** Requests the harness recorded arriving before the release: the barrier did not hold them. */
  early: number;
  /** Units left and answers so far, at TIMELINE_STEPS even steps from the release to the last answer. */
  timeline: BurstTimelinePoint[];
}

export interface BurstTimelinePoint {
  /** From the release. */
  ms: number;
  /** The stock less the HELD answers given by then. */
  unitsLeft: number;
  /** Requests answered by then, whatever the answer. */
  answered: number;
}

/** Enough steps to draw the curve of a burst, few enough to keep report.json small. */
export const TIMELINE_STEPS = 40;

/** The answers' curve: at each step, how many units the HELD answers had left and how many were answered. */
export function burstTimeline(
  records: readonly BurstRecord[],
  releasedAt: number,
  stock: number,
): BurstTimelinePoint[] {
  const times = records.map((r) => r.answeredAt - releasedAt).sort((a, b) => a - b);
  const heldTimes = records
    .filter((r) => r.outcome === 'HELD')
    .map((r) => r.answeredAt - releasedAt)
    .sort((a, b) => a - b);
  const end = times.at(-1) ?? 0;
  const upTo = (sorted: readonly number[], ms: number) => {
    let n = 0;
    while (n < sorted.length && (sorted[n] ?? 0) <= ms) n += 1;
    return n;
  };
  return Array.from({ length: TIMELINE_STEPS + 1 }, (_, step) => {
    const ms = (end * step) / TIMELINE_STEPS;
    return { ms: hundredths(ms), unitsLeft: stock - upTo(heldTimes, ms), answered: upTo(times, ms) };
  });
}

/** The harness's final read: units sold by the design's own remaining(), against the HELD answers. */
export interface BurstAudit {
  unitsSold: number;
  oversold: number;
  drift: number;
}

const hundredths = (x: number) => Math.round(x * 100) / 100;

function counted(values: readonly string[]): Record<string, number> {
  const into: Record<string, number> = {};
  for (const v of values) into[v] = (into[v] ?? 0) + 1;
  return into;
}

export function measureBurst(
  records: readonly BurstRecord[],
  releasedAt: number,
  stock: number,
): BurstMeasures {
  const held = records.filter((r) => r.outcome === 'HELD');
  const firstArrivals = Math.min(stock, records.length);
  const byArrival = [...records].sort((a, b) => a.arrivedAt - b.arrivedAt || a.request - b.request);
  const lastAnswer = (rs: readonly BurstRecord[]) => Math.max(releasedAt, ...rs.map((r) => r.answeredAt));
  return {
    soldOutMs: held.length >= stock ? hundredths(lastAnswer(held) - releasedAt) : null,
    answeredMs: hundredths(lastAnswer(records) - releasedAt),
    latency: summarizeLatency(records.map((r) => r.answeredAt - releasedAt)),
    answered: records.length,
    outcomes: counted(records.map((r) => r.outcome)),
    retries: records.reduce((n, r) => n + r.retries, 0),
    errors: counted(records.flatMap((r) => (r.outcome === 'ERROR' ? [r.sqlstate ?? 'other'] : []))),
    fairness: {
      firstArrivals,
      held: byArrival.slice(0, firstArrivals).filter((r) => r.outcome === 'HELD').length,
    },
    early: records.filter((r) => r.arrivedAt < releasedAt).length,
    timeline: burstTimeline(records, releasedAt, stock),
  };
}

export function auditBurst(stock: number, remaining: number, held: number): BurstAudit {
  const unitsSold = stock - remaining;
  return { unitsSold, oversold: Math.max(0, held - stock, unitsSold - stock), drift: unitsSold - held };
}

/** Every way the burst failed; none means it answered everyone and sold exactly min(stock, requests). */
export function burstProblems(
  requests: number,
  stock: number,
  measures: BurstMeasures,
  audit: BurstAudit,
): string[] {
  const held = measures.outcomes.HELD ?? 0;
  const due = Math.min(stock, requests);
  const gaveUp = measures.outcomes[GAVE_UP] ?? 0;
  return [
    ...(measures.early > 0 ? [`not exercised: ${measures.early} request(s) arrived before the release`] : []),
    ...(measures.answered !== requests ? [`${measures.answered} of ${requests} requests answered`] : []),
    ...(audit.oversold > 0 ? [`oversold ${audit.oversold}`] : []),
    ...(audit.drift !== 0 ? [`drift ${audit.drift}`] : []),
    ...(held < due && audit.oversold === 0
      ? [
          `${due - held} unit(s) left unsold: HELD ${held} of min(stock, requests) = ${due}${gaveUp > 0 ? ` (${gaveUp} gave up after their last 503)` : ''}`,
        ]
      : []),
  ];
}
