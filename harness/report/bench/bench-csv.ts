/** `bench.csv`: one row per series × trial, for a spreadsheet or a notebook (n/a reads as missing there). */
import type { BenchEntry, TrialEntry } from '../../bench/run-bench.ts';

export const CSV_COLUMNS = [
  'strategy',
  'durability',
  'clients',
  'admission',
  'trial',
  'throughput_per_s',
  'p50_ms',
  'p95_ms',
  'p99_ms',
  'max_ms',
  'generator_cores',
  'server_cores',
  'client_bound',
  'status',
] as const;

/** Appended only when some series is open, so that a closed-loop bench's CSV stays as it was. */
export const OPEN_CSV_COLUMNS = [
  'rate_per_s',
  'arrivals',
  'latency_limit_ms',
  'offered',
  'dropped',
  'late',
  'goodput_per_s',
  'service_p50_ms',
  'service_p99_ms',
] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function field(value: string | number | boolean | null): string {
  const text = value === null ? 'n/a' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The open model's columns: empty for a closed-loop trial, as an unset admission is. */
function openFields({ open }: TrialEntry): (string | number | null)[] {
  if (!open) return ['', '', '', '', '', '', '', '', ''];
  return [
    open.rate,
    open.arrivals,
    open.latencyLimitMs ?? '',
    open.offered,
    open.dropped,
    open.late,
    open.goodput,
    open.serviceLatency.p50,
    open.serviceLatency.p99,
  ];
}

export function renderBenchCsv(bench: readonly BenchEntry[]): string {
  const anyOpen = bench.some((e) => e.open);
  const rows = bench.flatMap((e) =>
    e.trials.map((t) => [
      e.strategy,
      e.durability,
      e.clients,
      e.admission ?? '',
      t.trial,
      t.throughput,
      t.latency.p50,
      t.latency.p95,
      t.latency.p99,
      t.latency.max,
      t.saturation.generatorCores,
      t.saturation.serverCores,
      t.saturation.clientBound,
      t.status,
      ...(anyOpen ? openFields(t) : []),
    ]),
  );
  const head = anyOpen ? [...CSV_COLUMNS, ...OPEN_CSV_COLUMNS] : CSV_COLUMNS;
  return `${[head, ...rows].map((row) => row.map(field).join(',')).join('\n')}\n`;
}
