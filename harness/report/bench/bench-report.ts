/**
 * The bench report: JSON (DESIGN.md's document with a `bench` section), Markdown, a CSV of every trial,
 * and the two SVG charts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchEntry, BenchResult } from '../../bench/run-bench.ts';
import type { BurstEntry, BurstResult } from '../../bench/run-burst.ts';
import { CLIENT_BOUND_CORES } from '../../bench/saturation.ts';
import { admissionFactors, benchCommitsLine, durabilityCosts } from '../../bench/series-factors.ts';
import { type Interval, RESAMPLES } from '../../bench/statistics.ts';
import type { UncontendedEntry } from '../../contract/bench-series.ts';
import type { ContractBench, MarkdownBlock } from '../../contract/contract.ts';
import { CONTRACTS } from '../../contracts/index.ts';
import type { Durability } from '../../database/durability.ts';
import type { Environment } from '../../database/environment.ts';
import type { SourceEntry } from '../../registry/source-manifest.ts';
import { configurationLines } from '../configuration-lines.ts';
import type { Configuration } from '../configuration-schema.ts';
import { writeHtmlReport } from '../html-report.ts';
import { markdownTable } from '../markdown-table.ts';
import { refreshLatest, reportFolder } from '../report.ts';
import { sourceLines } from '../source-lines.ts';
import {
  AGENT_HEADERS,
  AGENT_NOTE,
  agentRows,
  BURST_AGENT_HEADERS,
  BURST_AGENT_NOTE,
  burstAgentRows,
} from './agent-tables.ts';
import { benchCharts } from './bench-charts.ts';
import { renderBenchCsv } from './bench-csv.ts';
import { BURST_HEADERS, BURST_NOTE, burstRows } from './burst-tables.ts';
import { openHeaders, openRows, openSuffix } from './open-tables.ts';

export interface BenchReport {
  ok: boolean;
  /** The contract the designs are of; absent in reports written before one was recorded (the first). */
  contract?: string;
  generatedAt: string;
  environment: Environment;
  /** What the options resolved to (absent in reports written before it was recorded). */
  configuration?: Configuration;
  /** Absent only in reports written before sources were recorded. */
  sources?: SourceEntry[];
  cases: [];
  bench: BenchEntry[];
  uncontended: UncontendedEntry[];
  /** `bench --burst` only: one row per burst, and then no series. */
  burst?: BurstEntry[];
}

export function buildBenchReport(result: BenchResult, configuration?: Configuration): BenchReport {
  return {
    ok: result.ok,
    contract: result.contract,
    generatedAt: new Date().toISOString(),
    environment: result.environment,
    ...(configuration ? { configuration } : {}),
    sources: result.sources,
    cases: [],
    bench: result.bench,
    uncontended: result.uncontended,
  };
}

/** The report of `bench --burst`: the bursts instead of series. */
export function buildBurstReport(result: BurstResult, configuration?: Configuration): BenchReport {
  return {
    ok: result.ok,
    generatedAt: new Date().toISOString(),
    environment: result.environment,
    ...(configuration ? { configuration } : {}),
    sources: result.sources,
    cases: [],
    bench: [],
    uncontended: [],
    burst: result.burst,
  };
}

const shownInterval = (interval: Interval | undefined) =>
  interval ? `${interval.low}–${interval.high}` : 'n/a (1 trial)';
const shownCores = (cores: number | null) => (cores === null ? 'n/a' : String(cores));
const trialCount = (report: BenchReport) => Math.max(0, ...report.bench.map((e) => e.trials.length));

/** Why the intervals look as they do, in plain words for the trial count the report has. */
function intervalNote(trials: number): string {
  if (trials < 2) return 'One trial per series: no interval, and nothing says how far a rerun would move.';
  const base = `Each series ran ${trials} times, interleaved with the others (every series once, then every series again), so drift of the machine hit every series alike; shown are the median over the trials and its 95% interval (percentile bootstrap, ${RESAMPLES} seeded resamples).`;
  if (trials >= 10) return base;
  const why = trials <= 5 ? ': with 5 trials or fewer it is simply the lowest to the highest trial' : '';
  return `${base} **With ${trials} trials the interval is wide**${why}. Run \`--trials 10\` or more for a tighter one.`;
}

const SATURATION_NOTE = `Generator and server CPU are CPU time ÷ wall time of the measured window, in cores: the generator is this node process with its worker threads, the server the backends of the series' clients plus the server's auxiliary processes (WAL writer, checkpointer, I/O workers), read from /proc (n/a for a server on another host). **client-bound**: in some trial the generator used ≥ ${CLIENT_BOUND_CORES} core, so the series measured the load generator as much as the design (hollow markers in the charts).`;

const commitsCell = (durability: Durability) => (durability === 'on' ? 'durable' : 'not durable');

/** The bench side of the contract a report's designs are of (the first contract in an older report). */
export function benchContractOf(report: Pick<BenchReport, 'contract'>): ContractBench<never> {
  const contract = CONTRACTS.find((c) => c.id === report.contract) ?? CONTRACTS[0];
  return contract.bench;
}

const seriesHeaders = (unit: string) => [
  'strategy',
  'commits',
  'admission',
  'clients',
  `throughput median (${unit})`,
  `throughput 95% CI (${unit})`,
  'p50 (ms)',
  'p95 (ms)',
  'p99 median (ms)',
  'p99 95% CI (ms)',
  'max (ms)',
  'errors (count)',
  'admission retries (count)',
  'design retries (count)',
  'lock waiters (backends)',
  'lock share (of samples)',
  'generator (cores)',
  'server (cores)',
  'client-bound',
  'status',
];

/** `key:count …`, or 0 for none. */
const shownCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ') || '0';

/** One row per series, in seriesHeaders' order. */
function seriesRow(e: BenchEntry): string[] {
  return [
    `${e.strategy}${openSuffix(e)}`,
    commitsCell(e.durability),
    e.admission ?? '-',
    String(e.clients),
    String(e.median.throughput),
    shownInterval(e.ci95?.throughput),
    String(e.latency.p50),
    String(e.latency.p95),
    String(e.median.p99),
    shownInterval(e.ci95?.p99),
    String(e.latency.max),
    shownCounts(e.errors),
    String(e.retries),
    shownCounts(e.designRetries),
    String(e.lockWait.meanWaiters),
    String(e.lockWait.shareOfTime),
    String(e.saturation.generatorCores),
    shownCores(e.saturation.serverCores),
    e.saturation.clientBound ? '**yes**' : 'no',
    e.status === 'ok' ? 'ok' : `FAIL: ${e.problems.join('; ')}`,
  ];
}

/** The title, the environment and how to read the series table. */
function benchIntroLines(report: BenchReport): string[] {
  const bench = benchContractOf(report);
  return [
    ...environmentLines(report, { ok: bench.ok, failed: '**a series failed (see problems)**' }),
    `${benchCommitsLine(report.bench, report.environment.settings)}.`,
    ...bench.note,
    'admission wait included. Speeds come from one shared, noisy machine: compare ratios within a run, or',
    'two runs with `reservebench compare`.',
    '',
    ...chartLinks(report),
    intervalNote(trialCount(report)),
    '',
    SATURATION_NOTE,
    '',
  ];
}

function uncontendedLines(uncontended: readonly UncontendedEntry[], unit: string): string[] {
  if (uncontended.length === 0) return [];
  return [
    '## Uncontended cost (tinybench, one client)',
    '',
    markdownTable([
      ['strategy', `throughput (${unit})`, 'mean (ms)', 'p99 (ms)'],
      ...uncontended.map((u) => [
        u.strategy,
        String(u.opsPerSecond),
        String(u.latency.mean),
        String(u.latency.p99),
      ]),
    ]),
    '',
  ];
}

/** The admission section, where some series ran both with and without the gate. */
function admissionLines(bench: readonly BenchEntry[]): string[] {
  const factors = admissionFactors(bench);
  if (factors.length === 0) return [];
  return [
    '## Admission',
    '',
    markdownTable([
      ['strategy', 'commits', 'clients', 'throughput with ÷ without admission (ratio of medians)'],
      ...factors.map((f) => [f.strategy, commitsCell(f.durability), String(f.clients), String(f.factor)]),
    ]),
    '',
  ];
}

/** The contract's own section over the series' counts, where it has one. */
function contractLines(report: BenchReport): string[] {
  const blocks: MarkdownBlock[] = benchContractOf(report).section?.(report.bench) ?? [];
  return blocks.map((block) =>
    typeof block === 'string' ? block : markdownTable([block.headers, ...block.rows]),
  );
}

/** The open model's section, where some series ran with `--rate`. */
function openLines(bench: readonly BenchEntry[], unit: string): string[] {
  const rows = openRows(bench);
  if (rows.length === 0) return [];
  return [
    '## Open model',
    '',
    "Arrivals came on a schedule whether or not the clients kept up; in these series latency runs from each arrival's due time, so the wait for a free client counts (corrected for coordinated omission), and the service time (send to answer, what a closed loop reports) stands beside it. Dropped arrivals found no free client within the grace (the latency limit, else 1 s) and were never sent; late answers came after the limit; goodput counts HELD answers within it.",
    '',
    markdownTable([openHeaders(unit), ...rows]),
    '',
  ];
}

/** The load agents' section, where the series ran on agents (`--agents`). */
function agentLines(bench: readonly BenchEntry[]): string[] {
  const rows = agentRows(bench);
  if (rows.length === 0) return [];
  return ['## Load agents', '', AGENT_NOTE, '', markdownTable([AGENT_HEADERS, ...rows]), ''];
}

/** The durability section, where some series ran both durable and not (`--durability on,off`). */
function durabilityLines(bench: readonly BenchEntry[]): string[] {
  const costs = durabilityCosts(bench);
  if (costs.length === 0) return [];
  return [
    '## Durability cost',
    '',
    'What waiting for the WAL flush at each commit costs a design: its durable series ÷ its not durable one.',
    '',
    markdownTable([
      ['strategy', 'admission', 'clients', 'throughput durable ÷ not durable (ratio of medians)'],
      ...costs.map((c) => [c.strategy, c.admission ?? '-', String(c.clients), String(c.factor)]),
    ]),
    '',
  ];
}

/** The title and the environment, as every bench report opens. */
function environmentLines(report: BenchReport, verdict: { ok: string; failed: string }): string[] {
  const env = report.environment;
  return [
    '# reservebench benchmark',
    '',
    `Generated ${report.generatedAt} — ${report.ok ? verdict.ok : verdict.failed}`,
    '',
    `Node ${env.node}, PostgreSQL ${env.postgres} (${env.database}), ${env.cpus} cpus, commit ${env.commit}; ${Object.entries(
      env.settings,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}.`,
  ];
}

/** The load agents' section of a burst report, where the bursts ran on agents. */
function burstAgentLines(burst: readonly BurstEntry[]): string[] {
  const rows = burstAgentRows(burst);
  if (rows.length === 0) return [];
  return ['## Load agents', '', BURST_AGENT_NOTE, '', markdownTable([BURST_AGENT_HEADERS, ...rows]), ''];
}

/** The charts of the report, each an image link and a blank line (bench-charts.ts draws them). */
function chartLinks(report: BenchReport): string[] {
  return chartsOf(report).flatMap((chart) => [`![${chart.alt}](${chart.file})`, '']);
}

const chartsOf = (report: BenchReport) =>
  benchCharts(report.bench, report.burst, benchContractOf(report).unit.replace('/', ' / '));

/** The report of `bench --burst`: the environment, then the burst table and its charts. */
function burstMarkdown(report: BenchReport, burst: readonly BurstEntry[]): string {
  return [
    ...environmentLines(report, {
      ok: 'every burst answered every request and sold exactly min(stock, requests)',
      failed: '**a burst failed (see its status)**',
    }),
    `${benchCommitsLine(burst, report.environment.settings)}.`,
    '',
    '## Flash-sale burst',
    '',
    BURST_NOTE,
    '',
    markdownTable([BURST_HEADERS, ...burstRows(burst)]),
    '',
    ...burstAgentLines(burst),
    ...chartLinks(report),
    ...configurationLines(report.configuration),
    ...sourceLines(report.sources),
  ].join('\n');
}

export function renderBenchMarkdown(report: BenchReport): string {
  if (report.burst) return burstMarkdown(report, report.burst);
  return [
    ...benchIntroLines(report),
    markdownTable([seriesHeaders(benchContractOf(report).unit), ...report.bench.map(seriesRow)]),
    '',
    'Every trial of every series: [bench.csv](bench.csv).',
    '',
    ...contractLines(report),
    ...openLines(report.bench, benchContractOf(report).unit),
    ...agentLines(report.bench),
    ...uncontendedLines(report.uncontended, benchContractOf(report).unit),
    ...admissionLines(report.bench),
    ...durabilityLines(report.bench),
    ...configurationLines(report.configuration),
    ...sourceLines(report.sources),
  ].join('\n');
}

/** Writes report.json, report.md, bench.csv (not for a burst), the charts and report.html into `folder`. */
export function writeBenchFiles(folder: string, report: BenchReport): void {
  writeFileSync(join(folder, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(folder, 'report.md'), renderBenchMarkdown(report));
  // A burst has no trials over client counts: no CSV.
  if (!report.burst) writeFileSync(join(folder, 'bench.csv'), renderBenchCsv(report.bench));
  for (const chart of chartsOf(report)) writeFileSync(join(folder, chart.file), chart.svg);
  writeHtmlReport(folder);
}

/** Writes `<root>/<stamp>-bench/` and replaces `<root>/latest-bench/` with a copy; returns the stamped folder. */
export function writeBenchReportFiles(root: string, report: BenchReport): string {
  const folder = reportFolder(root, report.generatedAt, 'bench');
  mkdirSync(folder, { recursive: true });
  writeBenchFiles(folder, report);
  refreshLatest(root, folder, 'latest-bench');
  return folder;
}
