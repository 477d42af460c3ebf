/**
 * The benchmark's shape, not its speed: every strategy × client count × admission setting comes back with
 * throughput, percentiles, lock waiting and a clean audit, and the charts are SVG with one line per series.
 * Speeds are never asserted here (a shared 2-core machine); they are compared inside one bench run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, inject, it } from 'vitest';
import type { BenchReport } from '../harness/bench/bench-report.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');

describe('reservebench bench --json', () => {
  it('returns a series per strategy × clients × admission, audited, with charts', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-'));
    const strategies = ['hot-row', 'skip-locked-slots', 'memory-quota'];
    const run = await runCli([
      'bench',
      '--json',
      '--strategy',
      strategies.join(','),
      '--clients',
      '1,4',
      '--admission',
      '2:4',
      '--warmup-ms',
      '100',
      '--duration-ms',
      '400',
      '--stock',
      '20000',
      '--database-url',
      serverUrl,
      '--reports',
      reports,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.ok).toBe(true);
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
          expect(e.latency.p99).toBeLessThanOrEqual(e.latency.max);
          expect(e.outcomes.HELD).toBe(e.requests);
          expect(e).toMatchObject({ drift: 0, oversold: 0, errors: {} });
          expect(e.lockWait.shareOfTime).toBeGreaterThanOrEqual(0);
          expect(e.lockWait.shareOfTime).toBeLessThanOrEqual(1);
        }
      }
    }
    expect(report.uncontended.map((u) => u.strategy)).toEqual(strategies);
    for (const u of report.uncontended) expect(u.opsPerSecond).toBeGreaterThan(0);

    const folder = join(reports, 'latest-bench');
    for (const chart of ['throughput.svg', 'p99.svg']) {
      const svg = readFileSync(join(folder, chart), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(XMLValidator.validate(svg)).toBe(true);
      const series = [...svg.matchAll(/<path class="series" data-series="([^"]+)"/g)].map((m) => m[1]);
      expect(series.sort()).toEqual([...strategies, ...strategies.map((s) => `${s} (admission 2:4)`)].sort());
    }
    const markdown = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(markdown).toContain('![throughput vs clients](throughput.svg)');
    expect(markdown).toContain('throughput with ÷ without admission');
    rmSync(reports, { recursive: true, force: true });
  });

  it('runs the clients on the number of worker threads asked for', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-bench-'));
    const run = await runCli([
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
      '--database-url',
      serverUrl,
      '--reports',
      reports,
    ]);
    rmSync(reports, { recursive: true, force: true });
    const report = JSON.parse(run.stdout) as BenchReport;
    expect(report.bench).toHaveLength(1);
    expect(report.bench[0]).toMatchObject({ strategy: 'hot-row', clients: 3, status: 'ok', drift: 0 });
    const bad = await runCli(['bench', '--threads', '0', '--database-url', serverUrl]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--threads must be a whole number from 1 to 64, got "0"/);
  });

  it('rejects a malformed --admission with exit 2', async () => {
    const run = await runCli(['bench', '--admission', 'four', '--database-url', serverUrl]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--admission must be LIMIT:WAITING \(e\.g\. 4:8\), got "four"/);
  });
});
