/**
 * The burst table, for report.md, report.html (made from it) and the terminal alike: per row what the
 * flash sale looked like from the release instant, what every request was answered, how fair the units
 * went, and the harness's audit.
 */
import type { BurstEntry } from '../../bench/run-burst.ts';

export const BURST_HEADERS = [
  'strategy',
  'commits',
  'admission',
  'stock (units)',
  'requests (count)',
  'processes / threads',
  'connections (pool)',
  'peak connections (server)',
  'sold out after (ms)',
  'all answered after (ms)',
  'p50 (ms)',
  'p99 (ms)',
  'max (ms)',
  'outcomes (count)',
  '503 retries (count)',
  'fairness (HELD of first arrivals)',
  'units sold (final read)',
  'status',
];

/** The same columns, named short enough for a terminal. */
export const BURST_TERMINAL_HEADERS = [
  'strategy',
  'admission',
  'stock',
  'requests',
  'procs/thr',
  'pool',
  'peak conns',
  'sold out ms',
  'answered ms',
  'p50',
  'p99',
  'max',
  'outcomes',
  'retries',
  'fair',
  'sold',
  'status',
];

const shownCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}:${v}`)
    .join(' ') || '0';

const status = (e: BurstEntry) => (e.status === 'ok' ? 'ok' : `FAIL: ${e.problems.join('; ')}`);
const commits = (e: BurstEntry) => (e.durability === 'on' ? 'durable' : 'not durable');
const soldOut = (e: BurstEntry) => (e.soldOutMs === null ? 'not sold out' : String(e.soldOutMs));
const layout = (e: BurstEntry) => `${e.processes} / ${e.threads}`;
const fairness = (e: BurstEntry) => `${e.fairness.held} of ${e.fairness.firstArrivals}`;

/** One row per burst, in BURST_HEADERS' order. */
export function burstRows(entries: readonly BurstEntry[]): string[][] {
  return entries.map((e) => [
    e.strategy,
    commits(e),
    e.admission ?? '-',
    String(e.stock),
    String(e.requests),
    layout(e),
    String(e.connections),
    String(e.peakConnections),
    soldOut(e),
    String(e.answeredMs),
    String(e.latency.p50),
    String(e.latency.p99),
    String(e.latency.max),
    shownCounts(e.outcomes),
    String(e.retries),
    fairness(e),
    String(e.unitsSold),
    status(e),
  ]);
}

/** One row per burst, in BURST_TERMINAL_HEADERS' order: the commits said beside the strategy. */
export function burstTerminalRows(entries: readonly BurstEntry[]): string[][] {
  return burstRows(entries).map(([strategy = '', shownCommits, ...rest]) => [
    `${strategy}${shownCommits === 'not durable' ? ' (not durable)' : ''}`,
    ...rest,
  ]);
}

/** How to read the table, in report.md and under the terminal's. */
export const BURST_NOTE =
  "Every request of a row is a distinct user sending one reserve; all of them were released at one instant (an advisory lock every worker thread of every process waited on, let go once pg_locks showed them all waiting). Times run from that instant: sold out when the last unit's HELD came back, all answered at the last answer of any kind; p50/p99/max of every request's answer. With admission a 503 is retried by its client after a seeded full-jitter backoff (GAVE_UP_503: its last attempt was turned away too). Fairness: of the first min(stock, requests) requests to arrive at the service's door (the harness's own arrival record), how many got a unit. Units sold is the harness's own read of the design's stock afterwards; it must equal the HELD answers and min(stock, requests).";
