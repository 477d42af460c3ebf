/**
 * Two bench reports side by side, series by series (strategy × clients × admission): the throughput ratio
 * NEW ÷ BASE with a 95% interval bootstrapped over both sets of trials, and a verdict that says "no
 * difference" whenever the interval holds 1, so noise is never read as a speed-up or a regression.
 */
import { readFileSync } from 'node:fs';
import { median } from 'simple-statistics';
import { z } from 'zod';
import { type Interval, ratioInterval } from '../../bench/statistics.ts';
import { Errors, oneLine } from '../../errors.ts';
import { markdownTable } from '../markdown-table.ts';
import { benchContractOf } from './bench-report.ts';

const trialSchema = z.object({
  trial: z.number().int().positive(),
  status: z.enum(['ok', 'fail']),
  throughput: z.number().finite().nonnegative(),
  saturation: z.object({ clientBound: z.boolean() }),
});

const seriesSchema = z.object({
  strategy: z.string().min(1),
  clients: z.number().int().positive(),
  admission: z.string().nullable(),
  /** Absent in a report written before series had one: that report's own setting (see readBenchReport). */
  durability: z.enum(['on', 'off']).optional(),
  /** Open model only; a closed-loop series has none. */
  open: z
    .object({
      rate: z.number().positive(),
      arrivals: z.enum(['constant', 'poisson']),
      latencyLimitMs: z.number().positive().nullable(),
    })
    .optional(),
  status: z.enum(['ok', 'fail']),
  trials: z.array(trialSchema).min(1),
});

const benchReportSchema = z.object({
  /** The contract the designs are of (its unit); absent in reports written before: the first contract. */
  contract: z.string().optional(),
  environment: z.object({
    node: z.string(),
    postgres: z.string(),
    cpus: z.number(),
    commit: z.string(),
    database: z.string(),
    settings: z.record(z.string(), z.string()).optional(),
  }),
  bench: z.array(seriesSchema).min(1),
});

export type ComparedReport = z.infer<typeof benchReportSchema>;
type Series = z.infer<typeof seriesSchema>;

/**
 * `hot-row × 16 [admission 4:8] [not durable]`: how a series is named, matched and listed. A durable
 * series is never matched with one that is not: the flush is part of what was measured. Nor is an open
 * series with a closed one, nor with one at another rate, spacing or latency limit (the limit decides
 * what is dropped): `hot-row × 4 [open 200/s constant, limit 50 ms]`.
 */
export const seriesKey = (s: Pick<Series, 'strategy' | 'clients' | 'admission' | 'durability' | 'open'>) =>
  `${s.strategy} × ${s.clients}${s.admission ? ` [admission ${s.admission}]` : ''}${s.durability === 'off' ? ' [not durable]' : ''}${openKey(s.open)}`;

function openKey(open: Series['open']): string {
  if (!open) return '';
  const limit = open.latencyLimitMs === null ? '' : `, limit ${open.latencyLimitMs} ms`;
  return ` [open ${open.rate}/s ${open.arrivals}${limit}]`;
}

/** A bench report written with trials; anything else exits 2 with one line naming the file and the flaw. */
export function readBenchReport(role: 'BASE' | 'NEW', path: string): ComparedReport {
  const name = `${role} ${JSON.stringify(path)}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error: unknown) {
    throw Errors.badInput(`${name} cannot be read: ${oneLine(error)}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error: unknown) {
    throw Errors.badInput(`${name} is not JSON: ${oneLine(error)}`);
  }
  const parsed = benchReportSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'the document';
    throw Errors.badInput(
      `${name} is not a bench report with trials (${where}: ${oneLine(issue?.message ?? 'invalid')}); write one with reservebench bench`,
    );
  }
  // Before series had a durability, a whole bench ran with the one its database had.
  const ran = parsed.data.environment.settings?.synchronous_commit === 'off' ? 'off' : 'on';
  const report = {
    ...parsed.data,
    bench: parsed.data.bench.map((series) => ({ ...series, durability: series.durability ?? ran })),
  };
  const keys = report.bench.map(seriesKey);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice !== undefined) throw Errors.badInput(`${name} lists the series ${twice} twice`);
  return report;
}

export type Verdict = 'faster' | 'slower' | 'no difference' | 'not compared';

export interface SeriesComparison {
  strategy: string;
  clients: number;
  admission: string | null;
  /** Median throughput (in the contract's unit) over the passing trials, and how many there were. */
  base: { median: number; trials: number };
  new: { median: number; trials: number };
  /** median(NEW) ÷ median(BASE); null when not compared. */
  ratio: number | null;
  ci95: Interval | null;
  verdict: Verdict;
  /** Slower by more than the threshold with 95% confidence: the interval's upper bound is below 1 − PCT/100. */
  regression: boolean;
  /** Either run's generator was the bottleneck in some trial: the ratio may measure the driver. */
  clientBound: boolean;
  /** Why a series was not compared. */
  reason?: string;
}

export interface Comparison {
  failOnRegressionPct: number;
  series: SeriesComparison[];
  onlyInBase: string[];
  onlyInNew: string[];
  /** Environment fields that differ, `field: base → new`: a reason, besides the code, for a difference. */
  environmentDifferences: string[];
  regressions: number;
  /** What the throughputs count (the benched contract's unit, per second). */
  unit: string;
}

const ratioDigits = (x: number) => Math.round(x * 1000) / 1000;

function compareSeries(base: Series, next: Series, pct: number): SeriesComparison {
  const passed = (s: Series) => s.trials.filter((t) => t.status === 'ok').map((t) => t.throughput);
  const b = passed(base);
  const n = passed(next);
  const side = (values: number[]) => ({
    median: values.length > 0 ? Math.round(median(values) * 10) / 10 : 0,
    trials: values.length,
  });
  const reason =
    base.status !== 'ok'
      ? 'a trial failed in BASE'
      : next.status !== 'ok'
        ? 'a trial failed in NEW'
        : b.length < 2 || n.length < 2
          ? 'fewer than 2 trials on a side'
          : undefined;
  const interval = reason ? undefined : ratioInterval(b, n);
  const common = {
    strategy: base.strategy,
    clients: base.clients,
    admission: base.admission,
    base: side(b),
    new: side(n),
    clientBound: [...base.trials, ...next.trials].some((t) => t.saturation.clientBound),
  };
  if (!interval) {
    return {
      ...common,
      ratio: null,
      ci95: null,
      verdict: 'not compared',
      regression: false,
      reason: reason ?? 'BASE has a trial with no throughput',
    };
  }
  const ci95 = { low: ratioDigits(interval.low), high: ratioDigits(interval.high) };
  return {
    ...common,
    ratio: ratioDigits(median(n) / median(b)),
    ci95,
    verdict: ci95.low > 1 ? 'faster' : ci95.high < 1 ? 'slower' : 'no difference',
    regression: ci95.high < 1 - pct / 100,
  };
}

const ENVIRONMENT_FIELDS = ['node', 'postgres', 'cpus', 'database'] as const;

export function compareReports(
  base: ComparedReport,
  next: ComparedReport,
  failOnRegressionPct: number,
): Comparison {
  const newByKey = new Map(next.bench.map((s) => [seriesKey(s), s]));
  const baseKeys = new Set(base.bench.map(seriesKey));
  const series = base.bench.flatMap((b) => {
    const n = newByKey.get(seriesKey(b));
    return n ? [compareSeries(b, n, failOnRegressionPct)] : [];
  });
  if (series.length === 0) {
    throw Errors.badInput('BASE and NEW have no series (strategy × clients × admission) in common');
  }
  return {
    failOnRegressionPct,
    series,
    onlyInBase: base.bench.map(seriesKey).filter((k) => !newByKey.has(k)),
    onlyInNew: next.bench.map(seriesKey).filter((k) => !baseKeys.has(k)),
    environmentDifferences: ENVIRONMENT_FIELDS.filter((f) => base.environment[f] !== next.environment[f]).map(
      (f) => `${f}: ${base.environment[f]} → ${next.environment[f]}`,
    ),
    regressions: series.filter((s) => s.regression).length,
    unit: benchContractOf(next).unit,
  };
}

function verdictText(s: SeriesComparison): string {
  const verdict =
    s.verdict === 'not compared'
      ? `not compared: ${s.reason}`
      : s.verdict === 'no difference'
        ? 'no difference at 95%'
        : s.verdict;
  return [
    verdict,
    ...(s.regression ? ['**regression**'] : []),
    ...(s.clientBound ? ['client-bound'] : []),
  ].join(', ');
}

/** Markdown a reviewer can paste into a pull request. */
export function renderComparisonMarkdown(c: Comparison, names: { base: string; new: string }): string {
  const bound = Math.round((1 - c.failOnRegressionPct / 100) * 1000) / 1000;
  const fewest = Math.min(
    ...c.series.flatMap((s) => (s.ratio === null ? [] : [s.base.trials, s.new.trials])),
  );
  const lines = [
    `### Throughput: NEW (${names.new}) vs BASE (${names.base})`,
    '',
    markdownTable(
      [
        [
          'strategy',
          'admission',
          'clients',
          `BASE median (${c.unit})`,
          `NEW median (${c.unit})`,
          'NEW ÷ BASE (×)',
          '95% CI of NEW ÷ BASE (×)',
          'trials (BASE / NEW)',
          'verdict',
        ],
        ...c.series.map((s) => [
          s.strategy,
          s.admission ?? '-',
          String(s.clients),
          String(s.base.median),
          String(s.new.median),
          s.ratio === null ? 'n/a' : String(s.ratio),
          s.ci95 ? `${s.ci95.low}–${s.ci95.high}` : 'n/a',
          `${s.base.trials} / ${s.new.trials}`,
          verdictText(s),
        ]),
      ],
      { align: ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'] },
    ),
    '',
    'Faster or slower only when the whole 95% interval (percentile bootstrap over both sets of trials) lies above or below 1.',
    c.regressions > 0
      ? `**${c.regressions} regression(s)**: slower by more than ${c.failOnRegressionPct}% with 95% confidence (upper bound below ${bound}).`
      : `No regression: no series is slower by more than ${c.failOnRegressionPct}% with 95% confidence (upper bound below ${bound}).`,
  ];
  if (Number.isFinite(fewest) && fewest < 10) {
    lines.push(
      `With ${fewest} trials on a side the intervals are wide; \`bench --trials 10\` on both sides narrows them.`,
    );
  }
  if (c.series.some((s) => s.clientBound)) {
    lines.push(
      'client-bound: the load generator was saturated in some trial, so that ratio may measure the driver.',
    );
  }
  if (c.onlyInBase.length > 0) lines.push(`Only in BASE: ${c.onlyInBase.join('; ')}.`);
  if (c.onlyInNew.length > 0) lines.push(`Only in NEW: ${c.onlyInNew.join('; ')}.`);
  if (c.environmentDifferences.length > 0) {
    lines.push(`The runs' environments differ (${c.environmentDifferences.join(', ')}).`);
  }
  return `${lines.join('\n')}\n`;
}
