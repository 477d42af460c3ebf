/** `bench.csv`: one row per series × trial, for a spreadsheet or a notebook (n/a reads as missing there). */
import type { BenchEntry } from './run-bench.ts';

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

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function field(value: string | number | boolean | null): string {
  const text = value === null ? 'n/a' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderBenchCsv(bench: readonly BenchEntry[]): string {
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
    ]),
  );
  return `${[CSV_COLUMNS, ...rows].map((row) => row.map(field).join(',')).join('\n')}\n`;
}
