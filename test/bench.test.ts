/**
 * The benchmark's shape, not its speed: every strategy × client count × admission setting comes back with
 * its trials, medians within the trials' range and intervals around them, throughput, percentiles, lock
 * waiting, CPU saturation and a clean audit; a CSV row per trial; and the charts are SVG with one line
 * per series and an error bar per point. Speeds are never asserted here (a shared 2-core machine).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, inject, it } from 'vitest';
import { benchDesign } from '../harness/bench/bench-design.ts';
import { type BenchEntry, runBench } from '../harness/bench/run-bench.ts';
import { CLIENT_BOUND_CORES } from '../harness/bench/saturation.ts';
import { PAYMENT } from '../harness/contracts/payment/contract.ts';
import { CSV_COLUMNS, OPEN_CSV_COLUMNS } from '../harness/report/bench/bench-csv.ts';
import type { BenchReport } from '../harness/report/bench/bench-report.ts';
import paymentOutboxUndercounted from './fixtures/checks/payment-outbox-undercounted.ts';
import { schemaErrors } from './report-schema-validator.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');

/**
 * HDR reports a percentile as the top of its bucket but the max as recorded, so p99 may pass max by up to
 * a bucket's width: 3 significant digits, plus the rounding to hundredths.
 */
const notAbove = (value: number, bound: number) => expect(value).toBeLessThanOrEqual(bound * 1.001 + 0.01);

/** Trials, medians, intervals and saturation agree with each other; the figures themselves are free. */
function expectConsistentTrials(e: BenchEntry, trials: number): void {
  expect(e.trials.map((t) => t.trial)).toEqual(Array.from({ length: trials }, (_, i) => i + 1));
  for (const t of e.trials) {
    expect(t.status).toBe('ok');
    expect(t.throughput).toBeGreaterThan(0);
    expect(t.latency.p50).toBeLessThanOrEqual(t.latency.p99);
    notAbove(t.latency.p99, t.latency.max);
    expect(t.outcomes.HELD).toBe(t.requests);
    expect(t).toMatchObject({ drift: 0, oversold: 0, errors: {} });
    expect(t.saturation.generatorCores).toBeGreaterThanOrEqual(0);
    // The test server runs on this machine, so its backends can be read.
    expect(t.saturation.serverCores).toEqual(expect.any(Number));
    expect(t.saturation.clientBound).toBe(t.saturation.generatorCores >= CLIENT_BOUND_CORES);
  }
  for (const [median, values, interval] of [
    [e.median.throughput, e.trials.map((t) => t.throughput), e.ci95?.throughput],
    [e.median.p99, e.trials.map((t) => t.latency.p99), e.ci95?.p99],
  ] as const) {
    expect(median).toBeGreaterThanOrEqual(Math.min(...values));
    expect(median).toBeLessThanOrEqual(Math.max(...values));
    expect(interval).toBeDefined();
    expect(interval?.low).toBeLessThanOrEqual(median);
    expect(interval?.high).toBeGreaterThanOrEqual(median);
  }
  expect(e.throughput).toBe(e.median.throughput);
  expect(e.latency.p99).toBe(e.median.p99);
  expect(e.requests).toBe(e.trials.reduce((sum, t) => sum + t.requests, 0));
  expect(e.saturation.clientBound).toBe(e.trials.some((t) => t.saturation.clientBound));
}

describe('reservebench bench --json', () => {
  it('returns a series per strategy × clients × admission with its trials, audited, with CSV and charts', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-'));
    const strategies = ['hot-row', 'skip-locked-slots', 'memory-quota'];
    const run = await runCli(
      [
        'bench',
        '--json',
        '--strategy',
        strategies.join(','),
        '--clients',
        '1,4',
        '--admission',
        '2:4',
        '--trials',
        '2',
        '--warmup-ms',
        '100',
        '--duration-ms',
        '300',
        '--stock',
        '20000',
        '--reports',
        reports,
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.ok).toBe(true);
    // What its options resolved to, for `bench --config` to run again (test/config-file.test.ts).
    expect(report.configuration).toMatchObject({
      command: 'bench',
      options: { strategy: strategies, clients: [1, 4], admission: '2:4', 'wait-ms': 400, trials: 2 },
    });
    expect(report.bench).toHaveLength(strategies.length * 2 * 2);
    for (const strategy of strategies) {
      for (const admission of [null, '2:4']) {
        for (const clients of [1, 4]) {
          const e = report.bench.find(
            (b) => b.strategy === strategy && b.clients === clients && b.admission === admission,
          );
          expect(e, `${strategy} × ${clients} × ${admission}`).toBeDefined();
          if (!e) continue;
          expect(e.status).toBe('ok');
          expect(e.throughput).toBeGreaterThan(0);
          expect(e.latency.p50).toBeLessThanOrEqual(e.latency.p99);
          notAbove(e.latency.p99, e.latency.max);
          expect(e.outcomes.HELD).toBe(e.requests);
          expect(e).toMatchObject({ drift: 0, oversold: 0, errors: {} });
          expect(e.lockWait.shareOfTime).toBeGreaterThanOrEqual(0);
          expect(e.lockWait.shareOfTime).toBeLessThanOrEqual(1);
          expectConsistentTrials(e, 2);
        }
      }
    }
    // Interleaved: every series' first trial ran before any series' second.
    const lastFirst =
      report.bench
        .map((e) => e.trials[0]?.startedAt ?? '')
        .sort()
        .at(-1) ?? '';
    const firstSecond = report.bench.map((e) => e.trials[1]?.startedAt ?? '').sort()[0] ?? '';
    expect(Date.parse(lastFirst)).toBeLessThan(Date.parse(firstSecond));
    expect(report.uncontended.map((u) => u.strategy)).toEqual(strategies);
    for (const u of report.uncontended) expect(u.opsPerSecond).toBeGreaterThan(0);

    const folder = join(reports, 'latest-bench');
    const clientBound = report.bench.filter((e) => e.saturation.clientBound).length;
    for (const chart of ['throughput.svg', 'p99.svg']) {
      const svg = readFileSync(join(folder, chart), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(XMLValidator.validate(svg)).toBe(true);
      const series = [...svg.matchAll(/<path class="series" data-series="([^"]+)"/g)].map((m) => m[1]);
      expect(series.sort()).toEqual([...strategies, ...strategies.map((s) => `${s} (admission 2:4)`)].sort());
      // One error bar per point, and one in the legend; a hollow marker per client-bound point, and one there.
      expect(svg.match(/<g class="ci"/g)).toHaveLength(report.bench.length + 1);
      expect(svg.match(/<circle class="client-bound"/g) ?? []).toHaveLength(
        clientBound === 0 ? 0 : clientBound + 1,
      );
    }

    const csv = readFileSync(join(folder, 'bench.csv'), 'utf8').trimEnd().split('\n');
    expect(csv[0]).toBe(CSV_COLUMNS.join(','));
    const rows = csv.slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(report.bench.length * 2);
    for (const e of report.bench) {
      for (const t of e.trials) {
        const row = rows.find(
          (r) =>
            r[0] === e.strategy &&
            r[1] === e.durability &&
            r[2] === String(e.clients) &&
            r[3] === (e.admission ?? '') &&
            r[4] === String(t.trial),
        );
        expect(row, `${e.strategy} × ${e.clients} × ${e.admission} trial ${t.trial}`).toBeDefined();
        expect(row?.slice(5)).toEqual(
          [
            t.throughput,
            t.latency.p50,
            t.latency.p95,
            t.latency.p99,
            t.latency.max,
            t.saturation.generatorCores,
            t.saturation.serverCores,
            t.saturation.clientBound,
            t.status,
          ].map(String),
        );
      }
    }

    const markdown = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(markdown).toContain('![throughput vs clients](throughput.svg)');
    expect(markdown).toContain('throughput with ÷ without admission');
    expect(markdown).toContain('throughput median (reservations/s)');
    expect(markdown).toContain('p99 95% CI (ms)');
    expect(markdown).toContain('generator (cores)');
    expect(markdown).toContain('**With 2 trials the interval is wide**');
    expect(markdown).toContain('[bench.csv](bench.csv)');
    rmSync(reports, { recursive: true, force: true });
  });

  it('gives a series per durability and per knob value, and each design its durability cost', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-'));
    const args = ['--strategy', 'hot-row,bucketed', '--param', 'bucketed.buckets=16', '--clients', '4'];
    const run = await runCli(
      [
        'bench',
        '--json',
        ...args,
        '--trials',
        '1',
        '--warmup-ms',
        '100',
        '--duration-ms',
        '300',
        '--durability',
        'on,off',
        '--reports',
        reports,
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.bench.map((e) => [e.strategy, e.durability, e.status])).toEqual([
      ['hot-row', 'on', 'ok'],
      ['hot-row', 'off', 'ok'],
      ['bucketed[buckets=16]', 'on', 'ok'],
      ['bucketed[buckets=16]', 'off', 'ok'],
    ]);
    const markdown = readFileSync(join(reports, 'latest-bench', 'report.md'), 'utf8');
    expect(markdown).toMatch(/Commits: each series durable \(synchronous_commit = on\) or not \(off\)/);
    expect(markdown).toMatch(/## Durability cost[\s\S]*\| hot-row +\| - +\| 4 +\| \d/);
    const csv = readFileSync(join(reports, 'latest-bench', 'bench.csv'), 'utf8');
    expect(
      csv.split('\n').filter((line) => /^(hot-row|"?bucketed\[buckets=16\]"?),(on|off),4,/.test(line)),
    ).toHaveLength(4);
    rmSync(reports, { recursive: true, force: true });
  });

  it('runs the clients on the number of worker threads asked for', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-'));
    const run = await runCli(
      [
        'bench',
        '--json',
        '--strategy',
        'hot-row',
        '--clients',
        '3',
        '--threads',
        '1',
        '--warmup-ms',
        '50',
        '--duration-ms',
        '200',
        '--stock',
        '5000',
        '--reports',
        reports,
      ],
      { DATABASE_URL: serverUrl },
    );
    rmSync(reports, { recursive: true, force: true });
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.bench).toHaveLength(1);
    expect(report.bench[0]).toMatchObject({ strategy: 'hot-row', clients: 3, status: 'ok', drift: 0 });
    // Three trials unless told otherwise.
    expect(report.bench[0]?.trials).toHaveLength(3);
    const bad = await runCli(['bench', '--threads', '0'], { DATABASE_URL: serverUrl });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--threads must be a whole number from 1 to 64, got "0"/);
    const noTrials = await runCli(['bench', '--trials', '0'], { DATABASE_URL: serverUrl });
    expect(noTrials.code).toBe(2);
    expect(noTrials.stderr).toMatch(/--trials must be a whole number from 1 to 100, got "0"/);
  });

  it('serves arrivals at --rate, its latency from the due time, with drops, late answers and goodput', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-open-'));
    const [rate, limit, clients] = [200, 50, 4];
    const run = await runCli(
      [
        'bench',
        '--json',
        '--strategy',
        'hot-row',
        '--clients',
        String(clients),
        '--rate',
        String(rate),
        '--latency-limit',
        String(limit),
        '--trials',
        '1',
        '--warmup-ms',
        '100',
        '--duration-ms',
        '500',
        '--stock',
        '20000',
        '--reports',
        reports,
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    const [e] = report.bench;
    const t = e?.trials[0];
    const open = t?.open;
    if (!e || !t || !open) throw new Error(`no open series in ${run.stdout}`);
    expect(e.open).toMatchObject({ rate, arrivals: 'constant', latencyLimitMs: limit });
    expect(open.sent + open.dropped).toBe(open.offered);
    expect(open.sent).toBe(t.requests);
    // The window's length from its own figures; arrivals taken in it are rate × length, give or take what
    // the clients took ahead at either edge and the backlog the grace (the limit) lets wait there.
    const seconds = (t.outcomes.HELD ?? 0) / t.throughput;
    const edges = 2 * (clients + (rate * limit) / 1000) + 2;
    expect(Math.abs(open.offered - rate * seconds)).toBeLessThanOrEqual(edges);
    expect(open.goodput).toBeLessThanOrEqual(t.throughput);
    expect(open.late).toBeLessThanOrEqual(open.sent);
    // Each answer's latency from its due time includes its service time, so every percentile does too.
    expect(t.latency.p99).toBeGreaterThanOrEqual(open.serviceLatency.p99);
    expect(t.latency.p50).toBeGreaterThanOrEqual(open.serviceLatency.p50);
    expect(t).toMatchObject({ status: 'ok', drift: 0, oversold: 0 });
    const csv = readFileSync(join(reports, 'latest-bench', 'bench.csv'), 'utf8').split('\n');
    expect(csv[0]).toBe([...CSV_COLUMNS, ...OPEN_CSV_COLUMNS].join(','));
    expect(readFileSync(join(reports, 'latest-bench', 'report.md'), 'utf8')).toContain('## Open model');
    rmSync(reports, { recursive: true, force: true });
  });

  it('benches payment designs side by side: each key sent by a pair, paid once, the rows together', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-pay-'));
    const designs = ['payment-on-conflict', 'payment-external-call-inside[callMs=50]'];
    const short = ['--trials', '1', '--warmup-ms', '100', '--duration-ms', '300', '--reports', reports];
    const run = await runCli(
      [
        'bench',
        '--json',
        '--strategy',
        'payment-on-conflict,payment-external-call-inside',
        '--param',
        'payment-external-call-inside.callMs=50',
        '--clients',
        '2,3',
        ...short,
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.bench.map((e) => [e.strategy, e.clients, e.status])).toEqual(
      designs.flatMap((d) => [
        [d, 2, 'ok'],
        [d, 3, 'ok'],
      ]),
    );
    for (const e of report.bench) {
      const { CREATED = 0, REUSED = 0, ...others } = e.outcomes;
      expect(others, e.strategy).toEqual({});
      expect(CREATED + REUSED).toBe(e.requests);
      expect(e.errors).toEqual({});
      expect(e.tally?.created).toBe(e.tally?.keys);
      expect(e.tally?.created).toBeGreaterThanOrEqual(CREATED);
      expect(e.lockWait.shareOfTime).toBeLessThanOrEqual(1);
    }
    expect(report.uncontended).toEqual([]);
    expect(schemaErrors(report, 'docs/bench-report.schema.json')).toEqual([]);
    expect(report.sources?.map((s) => s.id)).toEqual(designs);
    const markdown = readFileSync(join(reports, 'latest-bench', 'report.md'), 'utf8');
    expect(markdown).toContain('throughput median (payments/s)');
    expect(markdown).toMatch(/## Payments[\s\S]*\| payment-on-conflict +\| durable +\| 2 +\| \d/);

    // A design paying a key once per attempt is caught by the harness's count of its own answers.
    const twice = await runCli(
      ['bench', '--json', '--strategy', 'payment-attempt-id-unique', '--clients', '2', ...short],
      { DATABASE_URL: serverUrl },
    );
    expect(twice.code, twice.stderr).toBe(1);
    const caught = (JSON.parse(twice.stdout) as BenchReport).bench[0];
    expect(caught?.problems).toEqual([
      expect.stringMatching(/^trial 1: \d+ CREATED answers for \d+ keys answered: a key paid twice/),
    ]);
    rmSync(reports, { recursive: true, force: true });
  });

  it("fails a payment series whose design's count of its writes is not the harness's", async () => {
    const result = await runBench({
      contract: PAYMENT.id,
      designs: [
        benchDesign(PAYMENT, {
          design: paymentOutboxUndercounted,
          moduleUrl: new URL('./fixtures/checks/payment-outbox-undercounted.ts', import.meta.url).href,
        }),
      ],
      clients: [2],
      warmupMs: 0,
      durationMs: 100,
      stock: 1,
      timeoutMs: 20_000,
      threads: 1,
      databaseUrl: serverUrl,
    });
    expect(result.ok).toBe(false);
    expect(result.bench[0]?.problems).toEqual([
      expect.stringMatching(/^trial 1: the design counts (\d+) payments and \d+ outbox rows for \1 CREATED/),
    ]);
  });

  it('rejects a malformed --admission with exit 2', async () => {
    const run = await runCli(['bench', '--admission', 'four'], { DATABASE_URL: serverUrl });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--admission must be LIMIT:WAITING \(e\.g\. 4:8\).*, got "four"/);
  });
});
