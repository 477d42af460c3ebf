/** The bench report: JSON (DESIGN.md's document with a `bench` section), Markdown, and the two SVG charts. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTable } from 'markdown-table';
import type { Environment } from '../database/environment.ts';
import { refreshLatest, reportFolder } from '../report/report.ts';
import { type ChartSeries, renderLineChart } from './charts.ts';
import type { BenchEntry, BenchResult } from './run-bench.ts';
import type { UncontendedEntry } from './uncontended.ts';

export interface BenchReport {
  ok: boolean;
  generatedAt: string;
  environment: Environment;
  cases: [];
  bench: BenchEntry[];
  uncontended: UncontendedEntry[];
}

export function buildBenchReport(result: BenchResult): BenchReport {
  return {
    ok: result.ok,
    generatedAt: new Date().toISOString(),
    environment: result.environment,
    cases: [],
    bench: result.bench,
    uncontended: result.uncontended,
  };
}

const seriesName = (e: BenchEntry) => (e.admission ? `${e.strategy} (admission ${e.admission})` : e.strategy);

export function chartSeries(bench: readonly BenchEntry[], value: (e: BenchEntry) => number): ChartSeries[] {
  const byName = new Map<string, ChartSeries>();
  for (const e of bench.filter((b) => b.status === 'ok')) {
    const name = seriesName(e);
    const series = byName.get(name) ?? { name, points: [] };
    series.points.push({ x: e.clients, y: value(e) });
    byName.set(name, series);
  }
  return [...byName.values()];
}

/** Throughput with admission ÷ without, per strategy and client count where both ran. */
export function admissionFactors(
  bench: readonly BenchEntry[],
): { strategy: string; clients: number; factor: number }[] {
  return bench
    .filter((e) => e.admission && e.status === 'ok')
    .flatMap((gated) => {
      const open = bench.find(
        (e) =>
          !e.admission && e.status === 'ok' && e.strategy === gated.strategy && e.clients === gated.clients,
      );
      return open && open.throughput > 0
        ? [
            {
              strategy: gated.strategy,
              clients: gated.clients,
              factor: Math.round((gated.throughput / open.throughput) * 100) / 100,
            },
          ]
        : [];
    });
}

export function renderBenchMarkdown(report: BenchReport): string {
  const env = report.environment;
  const factors = admissionFactors(report.bench);
  const lines = [
    '# reservebench benchmark',
    '',
    `Generated ${report.generatedAt} — ${report.ok ? 'every series ran and kept drift 0' : '**a series failed (see problems)**'}`,
    '',
    `Node ${env.node}, PostgreSQL ${env.postgres} (${env.database}), ${env.cpus} cpus, commit ${env.commit}; ${Object.entries(
      env.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}.`,
    'Throughput is HELD answers per second in the measured window; latency per request in ms (HDR histogram),',
    'admission wait included. Speeds come from one shared, noisy machine: compare ratios within a run.',
    '',
    '![throughput vs clients](throughput.svg)',
    '',
    '![p99 latency vs clients](p99.svg)',
    '',
    markdownTable([
      [
        'strategy',
        'admission',
        'clients',
        'throughput/s',
        'p50',
        'p95',
        'p99',
        'max',
        'errors',
        'retries',
        'lock waiters',
        'lock share',
        'status',
      ],
      ...report.bench.map((e) => [
        e.strategy,
        e.admission ?? '-',
        String(e.clients),
        String(e.throughput),
        String(e.latency.p50),
        String(e.latency.p95),
        String(e.latency.p99),
        String(e.latency.max),
        Object.entries(e.errors)
          .map(([k, v]) => `${k}:${v}`)
          .join(' ') || '0',
        String(e.retries),
        String(e.lockWait.meanWaiters),
        String(e.lockWait.shareOfTime),
        e.status === 'ok' ? 'ok' : `FAIL: ${e.problems.join('; ')}`,
      ]),
    ]),
    '',
    '## Uncontended cost (tinybench, one client)',
    '',
    markdownTable([
      ['strategy', 'reservations/s', 'mean ms', 'p99 ms'],
      ...report.uncontended.map((u) => [
        u.strategy,
        String(u.opsPerSecond),
        String(u.latency.mean),
        String(u.latency.p99),
      ]),
    ]),
    '',
  ];
  if (factors.length > 0) {
    lines.push(
      '## Admission',
      '',
      markdownTable([
        ['strategy', 'clients', 'throughput with ÷ without admission'],
        ...factors.map((f) => [f.strategy, String(f.clients), String(f.factor)]),
      ]),
      '',
    );
  }
  return lines.join('\n');
}

export function writeBenchReportFiles(root: string, report: BenchReport): string {
  const folder = reportFolder(root, report.generatedAt, 'bench');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(folder, 'report.md'), renderBenchMarkdown(report));
  const chart = (title: string, yLabel: string, value: (e: BenchEntry) => number) =>
    renderLineChart({ title, xLabel: 'clients', yLabel, series: chartSeries(report.bench, value) });
  writeFileSync(
    join(folder, 'throughput.svg'),
    chart('Throughput vs clients', 'reservations / s', (e) => e.throughput),
  );
  writeFileSync(
    join(folder, 'p99.svg'),
    chart('p99 latency vs clients', 'p99 latency (ms)', (e) => e.latency.p99),
  );
  refreshLatest(root, folder, 'latest-bench');
  return folder;
}
