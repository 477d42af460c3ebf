/**
 * The bench report's arithmetic and drawing without a database: seeded bootstrap intervals, the CSV, the
 * Markdown's notes and flags, and the charts' error bars, hollow markers and log axis, on made-up trials
 * (a real run on this machine is rarely client-bound, so the flag is exercised here).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { median } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import type { BenchEntry, TrialEntry } from '../harness/bench/run-bench.ts';
import { durabilityCosts } from '../harness/bench/series-factors.ts';
import { medianInterval, ratioInterval } from '../harness/bench/statistics.ts';
import { chartSeries } from '../harness/report/bench/bench-charts.ts';
import { CSV_COLUMNS, renderBenchCsv } from '../harness/report/bench/bench-csv.ts';
import {
  type BenchReport,
  renderBenchMarkdown,
  writeBenchFiles,
} from '../harness/report/bench/bench-report.ts';
import { renderBenchTerminal } from '../harness/report/bench/bench-terminal.ts';
import { renderLineChart } from '../harness/report/bench/charts.ts';
import {
  compareReports,
  readBenchReport,
  renderComparisonMarkdown,
  seriesKey,
} from '../harness/report/bench/compare.ts';
import { comparisonJunit } from '../harness/report/bench/compare-junit.ts';
import { benchReportSchema } from '../harness/report/bench-report-schema.ts';
import { renderHtmlReport } from '../harness/report/html-report.ts';
import { schemaErrors } from './report-schema-validator.ts';

function trial(n: number, throughput: number, p99: number, generatorCores: number): TrialEntry {
  return {
    trial: n,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    status: 'ok',
    throughput,
    latency: { p50: p99 / 4, p95: p99 / 2, p99, max: p99 * 2 },
    requests: throughput,
    outcomes: { HELD: throughput },
    retries: 0,
    designRetries: {},
    errors: {},
    lockWait: { meanWaiters: 0, shareOfTime: 0 },
    saturation: { generatorCores, serverCores: null, clientBound: generatorCores >= 0.8 },
    drift: 0,
    oversold: 0,
    problems: [],
  };
}

function series(strategy: string, clients: number, trials: TrialEntry[]): BenchEntry {
  const throughput = median(trials.map((t) => t.throughput));
  const p99 = median(trials.map((t) => t.latency.p99));
  return {
    strategy,
    clients,
    admission: null,
    durability: 'on',
    status: 'ok',
    throughput,
    latency: { p50: p99 / 4, p95: p99 / 2, p99, max: p99 * 2 },
    median: { throughput, p99 },
    ci95: {
      throughput: medianInterval(trials.map((t) => t.throughput)),
      p99: medianInterval(trials.map((t) => t.latency.p99)),
    },
    saturation: {
      generatorCores: median(trials.map((t) => t.saturation.generatorCores)),
      serverCores: null,
      clientBound: trials.some((t) => t.saturation.clientBound),
    },
    requests: 0,
    outcomes: {},
    retries: 0,
    designRetries: {},
    errors: {},
    lockWait: { meanWaiters: 0, shareOfTime: 0 },
    drift: 0,
    oversold: 0,
    problems: [],
    trials,
  };
}

const report: BenchReport = {
  ok: true,
  generatedAt: '2026-01-01T00:00:00.000Z',
  environment: {
    node: 'v20',
    postgres: '18',
    settings: {},
    cpus: 2,
    commit: 'abc',
    database: 'url',
  },
  cases: [],
  bench: [
    series('hot-row', 1, [trial(1, 900, 2, 0.3), trial(2, 1000, 3, 0.3), trial(3, 1100, 4, 0.3)]),
    series('hot-row', 64, [trial(1, 500, 300, 0.7), trial(2, 600, 400, 0.9), trial(3, 550, 350, 0.6)]),
  ],
  uncontended: [],
};

describe('bootstrap intervals', () => {
  it('span the lowest to the highest of a few trials, the same on every call', () => {
    expect(medianInterval([3, 1, 2])).toEqual({ low: 1, high: 3 });
    expect(medianInterval([5])).toEqual({ low: 5, high: 5 });
    const values = [10, 12, 9, 11, 13, 8, 10.5, 12.5, 9.5, 11.5];
    expect(medianInterval(values)).toEqual(medianInterval(values));
  });

  it('hold the median of the trials', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1, max: 1e5, noNaN: true }), { minLength: 2, maxLength: 25 }),
        (v) => {
          const { low, high } = medianInterval(v);
          const m = median(v);
          return low <= m && m <= high;
        },
      ),
      { numRuns: 40 },
    );
  });

  it('of a ratio hold 1 for the same trials and lie below it for trials halved', () => {
    const base = [1000, 1100, 950];
    const same = ratioInterval(base, base);
    expect(same?.low).toBeLessThanOrEqual(1);
    expect(same?.high).toBeGreaterThanOrEqual(1);
    const halved = ratioInterval(
      base,
      base.map((v) => v / 2),
    );
    expect(halved?.high).toBeLessThan(0.9);
    expect(ratioInterval([0, 5], [5, 5])).toBeUndefined();
  });
});

describe('bench report files', () => {
  it('write one CSV row per series × trial, n/a where the server could not be read', () => {
    const lines = renderBenchCsv(report.bench).trimEnd().split('\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(1 + 6);
    expect(lines[5]).toBe('hot-row,on,64,,2,600,100,200,400,800,0.9,n/a,true,ok');
    const quoted = renderBenchCsv([series('a,"b"', 1, [trial(1, 1, 1, 0)])]).split('\n')[1];
    expect(quoted?.startsWith('"a,""b""",on,1,')).toBe(true);
  });

  it('flag client-bound series and say plainly that three trials give wide intervals', () => {
    const markdown = renderBenchMarkdown(report);
    expect(markdown).toContain('**With 3 trials the interval is wide**');
    expect(markdown).toContain('≥ 0.8 core');
    const rows = markdown.split('\n').filter((l) => l.startsWith('| hot-row'));
    expect(rows[0]).toMatch(/\| 900–1100 +\|.*\| n\/a +\| no +\| ok/);
    expect(rows[1]).toMatch(/\| 500–600 +\|.*\| n\/a +\| \*\*yes\*\* +\| ok/);
    expect(renderBenchTerminal(report)).toContain('ok, CLIENT-BOUND');
  });

  it('escape | and line breaks in every cell, so report.md and report.html keep their columns', () => {
    const failed: BenchEntry = {
      ...series('a|b', 1, [trial(1, 900, 2, 0.3)]),
      status: 'fail',
      problems: ['drift 1 | oversold 0', 'first\nsecond'],
    };
    const markdown = renderBenchMarkdown({
      ...report,
      bench: [failed],
      uncontended: [{ strategy: 'c\\|d', opsPerSecond: 1, latency: { mean: 1, p99: 1 }, samples: 1 }],
    });
    const row = markdown.split('\n').find((l) => l.startsWith('| a'));
    expect(row).toMatch(/^\| a\\\|b +\|/);
    expect(row).toContain('| FAIL: drift 1 \\| oversold 0; first<br>second |');
    expect(markdown).toMatch(/\n\| c\\\\\\\|d +\|/);
    const html = renderHtmlReport(markdown);
    const cells = (first: string) =>
      [
        ...(html.match(new RegExp(`<tr>\\n<td>${first}</td>[\\s\\S]*?</tr>`))?.[0] ?? '').matchAll(
          /<td>(.*?)<\/td>/g,
        ),
      ].map((m) => m[1]);
    const seriesCells = cells('a\\|b');
    expect(seriesCells).toHaveLength(20);
    expect(seriesCells.at(-1)).toBe('FAIL: drift 1 | oversold 0; first<br>second');
    expect(cells('c\\\\\\|d')).toEqual(['c\\|d', '1', '1', '1']);
  });

  it('draw error bars, hollow markers for client-bound points, and a log axis only for a wide p99', () => {
    const p99 = chartSeries(report.bench, (e) => ({ y: e.median.p99, interval: e.ci95?.p99 }));
    const chart = renderLineChart({
      title: 'p99',
      xLabel: 'clients',
      yLabel: 'p99 (ms)',
      series: p99,
      yScale: 'log-when-wide',
      intervalLabel: '95% interval',
      hollowLabel: 'client-bound',
    });
    expect(XMLValidator.validate(chart)).toBe(true);
    expect(chart.match(/<g class="ci"/g)).toHaveLength(2 + 1);
    expect(chart.match(/<circle class="client-bound"/g)).toHaveLength(1 + 1);
    expect(chart.match(/<circle class="point"/g)).toHaveLength(1);
    expect(chart).toContain('p99 (ms), log scale');

    const narrow = renderLineChart({
      title: 'p99',
      xLabel: 'clients',
      yLabel: 'p99 (ms)',
      series: [{ name: 's', points: [{ x: 1, y: 10, interval: { low: 9, high: 90 } }] }],
      yScale: 'log-when-wide',
    });
    expect(narrow).not.toContain('log scale');
    const linear = renderLineChart({ ...{ title: 't', xLabel: 'x', yLabel: 'y' }, series: p99 });
    expect(linear).not.toContain('log scale');
  });
});

describe('durability in a bench', () => {
  const durable = series('hot-row', 16, [trial(1, 600, 20, 0.3)]);
  const notDurable = { ...series('hot-row', 16, [trial(1, 900, 10, 0.3)]), durability: 'off' as const };
  const both: BenchReport = { ...report, bench: [durable, notDurable] };

  it('divides a durable series by its not durable twin, and never matches the two in compare', () => {
    expect(durabilityCosts(both.bench)).toEqual([
      { strategy: 'hot-row', clients: 16, admission: null, factor: 0.67 },
    ]);
    expect(seriesKey(durable)).toBe('hot-row × 16');
    expect(seriesKey(notDurable)).toBe('hot-row × 16 [not durable]');
  });

  it('says which in every table: the commits line, the commits column, the cost table, the terminal', () => {
    const markdown = renderBenchMarkdown(both);
    expect(markdown).toContain('Commits: each series durable (synchronous_commit = on) or not (off)');
    expect(markdown).toMatch(/\| hot-row +\| durable +\|/);
    expect(markdown).toMatch(/\| hot-row +\| not durable +\|/);
    expect(markdown).toMatch(/## Durability cost\n[\s\S]*\| hot-row +\| - +\| 16 +\| 0\.67 +\|/);
    const one = renderBenchMarkdown({ ...report, bench: [durable] });
    expect(one).toContain('Commits: durable (synchronous_commit = on)');
    expect(one).not.toContain('## Durability cost');
    const terminal = renderBenchTerminal(both);
    expect(terminal).toContain('hot-row (not durable)');
    expect(terminal).toContain('throughput durable ÷ not durable: hot-row × 16: 0.67');
  });
});

describe('the burst report', () => {
  const folder = new URL('../reports/examples/bench-burst/', import.meta.url).pathname;
  const example = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as BenchReport;

  it('is a bench report by its schema, with bursts and no series, the flash-sale lab’s scale first', () => {
    expect(schemaErrors(example, 'docs/bench-report.schema.json')).toEqual([]);
    expect(benchReportSchema.safeParse(example).success).toBe(true);
    expect(example.bench).toEqual([]);
    expect(example.burst?.[0]).toMatchObject({ stock: 40, requests: 150, admission: null });
    expect(example.burst?.[1]).toMatchObject({ stock: 40, requests: 150, admission: '4:8' });
    const spoiled = structuredClone(example);
    if (spoiled.burst?.[0]) spoiled.burst[0].fairness.held = -1;
    expect(schemaErrors(spoiled, 'docs/bench-report.schema.json')).not.toEqual([]);
  });

  it('answers the must-show: 10,000 requests on 40 units, every one answered, 40 sold', () => {
    const big = (example.burst ?? []).filter((e) => e.requests === 10_000);
    expect(big.length).toBeGreaterThan(0);
    for (const e of big) {
      expect(Object.values(e.outcomes).reduce((a, b) => a + b, 0)).toBe(10_000);
      expect(e).toMatchObject({ stock: 40, unitsSold: 40, oversold: 0, status: 'ok' });
    }
  });

  it('is what `npm run examples:render` makes of its report.json: the table, no CSV or charts', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'reservebench-burst-example-'));
    try {
      writeFileSync(join(scratch, 'report.json'), readFileSync(join(folder, 'report.json')));
      writeBenchFiles(scratch, example);
      expect(readdirSync(scratch).sort()).toEqual(readdirSync(folder).sort());
      for (const file of readdirSync(folder)) {
        expect(readFileSync(join(scratch, file), 'utf8'), file).toBe(
          readFileSync(join(folder, file), 'utf8'),
        );
      }
      expect(renderBenchMarkdown(example)).toContain('## Flash-sale burst');
      expect(renderBenchTerminal(example)).toMatch(/hot-row +│ 4:8 +│ 40 +│ 10000 /);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('the durability and bucket examples', () => {
  const example = (name: string) => {
    const folder = new URL(`../reports/examples/${name}/`, import.meta.url).pathname;
    return { folder, report: JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as BenchReport };
  };
  const series = (report: BenchReport) =>
    report.bench.map((e) => `${e.strategy} ${e.durability} ${e.clients} ${e.status}`).sort();

  it('durability: issue 26’s four designs at 16 and 150 clients, each durable and not, with its cost', () => {
    const { report } = example('bench-durability');
    expect(schemaErrors(report, 'docs/bench-report.schema.json')).toEqual([]);
    const expected = ['bucketed', 'coalesced', 'hot-row', 'memory-quota'].flatMap((s) =>
      ['off', 'on'].flatMap((d) => [16, 150].map((c) => `${s} ${d} ${c} ok`)),
    );
    expect(series(report)).toEqual(expected.sort());
    expect(durabilityCosts(report.bench)).toHaveLength(8);
    expect(renderBenchMarkdown(report)).toContain('## Durability cost');
  });

  it('buckets: hot-row and bucketed × 1…256 buckets at 150 clients, every series durable', () => {
    const { report } = example('bench-buckets');
    expect(schemaErrors(report, 'docs/bench-report.schema.json')).toEqual([]);
    expect(series(report)).toEqual(
      ['hot-row', ...[1, 4, 16, 64, 256].map((n) => `bucketed[buckets=${n}]`)]
        .map((s) => `${s} on 150 ok`)
        .sort(),
    );
  });

  it('open: two designs at three arrival rates, each with latency from the due time and service time', () => {
    const { report } = example('bench-open');
    expect(schemaErrors(report, 'docs/bench-report.schema.json')).toEqual([]);
    const rows = report.bench.map((e) => [e.strategy, e.clients, e.open?.rate, e.status]);
    expect(rows).toEqual(
      ['hot-row', 'skip-locked-slots'].flatMap((s) => [300, 1000, 3000].map((r) => [s, 16, r, 'ok'])),
    );
    for (const e of report.bench) {
      expect(e.open?.latencyLimitMs).toBe(50);
      expect(e.open?.serviceLatency.p99).toBeGreaterThan(0);
    }
    expect(renderBenchMarkdown(report)).toContain('Open model');
  });

  it.each(['bench-durability', 'bench-buckets', 'bench-open', 'bench-payments', 'bench-burst'])(
    '%s is what `npm run examples:render` makes of it',
    (name) => {
      const { folder, report } = example(name);
      const scratch = mkdtempSync(join(tmpdir(), 'reservebench-example-'));
      // The screenshots beside it are the browser's (npm run examples:screenshots), not rendered.
      const rendered = readdirSync(folder).filter((file) => !file.endsWith('.png'));
      try {
        writeFileSync(join(scratch, 'report.json'), readFileSync(join(folder, 'report.json')));
        writeBenchFiles(scratch, report);
        expect(readdirSync(scratch).sort()).toEqual(rendered.sort());
        for (const file of rendered) {
          expect(readFileSync(join(scratch, file), 'utf8'), file).toBe(
            readFileSync(join(folder, file), 'utf8'),
          );
        }
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
});

describe('the payment bench example', () => {
  const folder = new URL('../reports/examples/bench-payments/', import.meta.url).pathname;
  const example = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as BenchReport;

  it('has the pair side by side at 16 and 64 clients, the call at 0 and 800 ms, every key paid once', () => {
    expect(schemaErrors(example, 'docs/bench-report.schema.json')).toEqual([]);
    const designs = [
      'payment-on-conflict',
      'payment-external-call-inside[callMs=0]',
      'payment-external-call-inside[callMs=800]',
    ];
    expect(example.bench.map((e) => [e.strategy, e.clients, e.status])).toEqual(
      designs.flatMap((d) => [
        [d, 16, 'ok'],
        [d, 64, 'ok'],
      ]),
    );
    for (const e of example.bench) {
      expect(e.tally?.created, e.strategy).toBe(e.tally?.keys);
      expect(e.errors).toEqual({});
    }
  });

  it('is what `npm run examples:render` makes of its report.json', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'reservebench-payments-example-'));
    try {
      writeFileSync(join(scratch, 'report.json'), readFileSync(join(folder, 'report.json')));
      writeBenchFiles(scratch, example);
      for (const file of readdirSync(folder)) {
        expect(readFileSync(join(scratch, file), 'utf8'), file).toBe(
          readFileSync(join(folder, file), 'utf8'),
        );
      }
      expect(renderBenchTerminal(example)).toContain('pay/s [95% CI]');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('is compared in payments per second, in the table and in the JUnit lines', () => {
    const read = (path: string) => readBenchReport('NEW', path);
    const payments = compareReports(read(join(folder, 'report.json')), read(join(folder, 'report.json')), 10);
    expect(payments.unit).toBe('payments/s');
    expect(renderComparisonMarkdown(payments, { base: 'a', new: 'b' })).toContain('BASE median (payments/s)');
    const lines = comparisonJunit(payments).suites.flatMap((s) => s.cases.map((c) => JSON.stringify(c)));
    expect(lines.every((l) => l.includes(' payments/s'))).toBe(true);
    const reservations = new URL('../reports/examples/bench/report.json', import.meta.url).pathname;
    expect(compareReports(read(reservations), read(reservations), 10).unit).toBe('reservations/s');
  });
});
