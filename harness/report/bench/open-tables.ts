/**
 * The open model's table, for report.md and the terminal alike: per open series what was offered, what
 * came back in time, and the latency from the due time beside the service time, so the queueing a closed
 * loop hides shows as the gap between the two.
 */
import type { BenchEntry } from '../../bench/run-bench.ts';

/** The columns, with what the benched contract's throughput counts (its bench unit). */
export const openHeaders = (unit: string) => [
  'strategy',
  'clients',
  'offered (arrivals/s)',
  `throughput median (${unit})`,
  'goodput median (within limit/s)',
  'latency limit (ms)',
  'offered (count)',
  'sent (count)',
  'dropped (count)',
  'late (count)',
  'p50 from due (ms)',
  'p99 from due (ms)',
  'max from due (ms)',
  'p50 service (ms)',
  'p99 service (ms)',
  'max service (ms)',
];

/** The same columns, named short enough for a terminal (the throughput in the contract's short unit). */
export const openTerminalHeaders = (shortUnit: string) => [
  'strategy',
  'clients',
  'rate/s',
  shortUnit,
  'goodput/s',
  'limit ms',
  'offered',
  'sent',
  'dropped',
  'late',
  'p50 due',
  'p99 due',
  'max due',
  'p50 svc',
  'p99 svc',
  'max svc',
];

/** A name that tells an open series from the closed one of the same design and clients. */
export const openSuffix = (e: Pick<BenchEntry, 'open'>) =>
  e.open ? ` @ ${e.open.rate}/s${e.open.arrivals === 'poisson' ? ' poisson' : ''}` : '';

/** One row per open series, in openHeaders' order; closed series have none. */
export function openRows(bench: readonly BenchEntry[]): string[][] {
  return bench.flatMap((e) => {
    const open = e.open;
    if (!open) return [];
    return [
      [
        `${e.strategy}${e.durability === 'off' ? ' (not durable)' : ''}`,
        String(e.clients),
        `${open.rate}${open.arrivals === 'poisson' ? ` poisson (seed ${open.seed})` : ''}`,
        String(e.median.throughput),
        String(open.goodput),
        open.latencyLimitMs === null ? '-' : String(open.latencyLimitMs),
        String(open.offered),
        String(open.sent),
        String(open.dropped),
        String(open.late),
        String(e.latency.p50),
        String(e.median.p99),
        String(e.latency.max),
        String(open.serviceLatency.p50),
        String(open.serviceLatency.p99),
        String(open.serviceLatency.max),
      ],
    ];
  });
}
