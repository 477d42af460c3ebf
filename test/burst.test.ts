/**
 * `bench --burst` against a real server: every request of the burst comes back with one answer, the units
 * sold are min(stock, requests) by the harness's own read, fairness stays within 0..stock, and a burst
 * spread over two processes adds up the same. A design known to oversell (check-then-act) fails the bench
 * for exactly that. Speeds are never asserted here; only counts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { BurstEntry } from '../harness/bench/run-burst.ts';
import type { BenchReport } from '../harness/report/bench/bench-report.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const reports = mkdtempSync(join(tmpdir(), 'reservebench-burst-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

async function burstReport(
  args: string[],
): Promise<{ code: number | null; report: BenchReport; stderr: string }> {
  const run = await runCli(['bench', '--json', '--reports', reports, ...args], { DATABASE_URL: serverUrl });
  return { code: run.code, report: JSON.parse(run.stdout) as BenchReport, stderr: run.stderr };
}

/** What any burst that passed must show, whatever the timing. */
function expectAnsweredInFull(e: BurstEntry | undefined): void {
  expect(e?.status, e?.problems.join('; ')).toBe('ok');
  if (!e) return;
  const answered = Object.values(e.outcomes).reduce((a, b) => a + b, 0);
  expect(answered).toBe(e.requests);
  expect(e.outcomes.HELD).toBe(Math.min(e.stock, e.requests));
  expect(e.unitsSold).toBe(Math.min(e.stock, e.requests));
  expect(e).toMatchObject({ oversold: 0, drift: 0, problems: [] });
  expect(e.fairness.firstArrivals).toBe(Math.min(e.stock, e.requests));
  expect(e.fairness.held).toBeGreaterThanOrEqual(0);
  expect(e.fairness.held).toBeLessThanOrEqual(e.stock);
  expect(e.peakConnections).toBeGreaterThanOrEqual(1);
  expect(e.peakConnections).toBeLessThanOrEqual(e.connections);
  expect(e.soldOutMs).not.toBeNull();
  expect(e.soldOutMs ?? 0).toBeLessThanOrEqual(e.answeredMs);
  // Each is rounded to 0.01 ms on its own: the max may come out one hundredth above, never more. In
  // hundredths, as integers: 333.65 + 0.01 is 333.65999999999997 in floating point.
  expect(Math.round(e.latency.max * 100)).toBeLessThanOrEqual(Math.round(e.answeredMs * 100) + 1);
}

describe('reservebench bench --burst', () => {
  it("runs the flash-sale lab's scale, with and without admission 4:8, answered in full", async () => {
    const { code, report, stderr } = await burstReport([
      '--burst',
      '150',
      '--stock',
      '40',
      '--strategy',
      'hot-row',
      '--admission',
      '4:8',
    ]);
    expect(code, stderr).toBe(0);
    expect(report.bench).toEqual([]);
    expect(report.burst?.map((e) => [e.requests, e.stock, e.admission, e.processes])).toEqual([
      [150, 40, null, 1],
      [150, 40, '4:8', 1],
    ]);
    for (const e of report.burst ?? []) expectAnsweredInFull(e);
    expect(report.burst?.[0]?.retries).toBe(0);
    expect(report.burst?.[0]?.connections).toBe(150);
    const markdown = readFileSync(join(reports, 'latest-bench', 'report.md'), 'utf8');
    expect(markdown).toContain('## Flash-sale burst');
    expect(markdown).toMatch(/\| hot-row +\| durable +\| 4:8 +\| 40 +\| 150 +\|/);
  });

  it('adds up the same over two processes, each with its own gate', async () => {
    const { code, report, stderr } = await burstReport([
      '--burst',
      '300',
      '--stock',
      '40',
      '--strategy',
      'hot-row',
      '--processes',
      '2',
      '--clients',
      '20',
      '--admission',
      '2:2',
      '--retries',
      '1000',
    ]);
    expect(code, stderr).toBe(0);
    expect(report.burst?.map((e) => [e.processes, e.connections, e.admission])).toEqual([
      [2, 20, null],
      [2, 20, '2:2'],
    ]);
    for (const e of report.burst ?? []) expectAnsweredInFull(e);
  });

  it('fails a burst that oversells (check-then-act), for that reason, with exit 1', async () => {
    const { code, report } = await burstReport([
      '--burst',
      '150',
      '--stock',
      '40',
      '--strategy',
      'check-then-act',
    ]);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    const [e] = report.burst ?? [];
    expect(e?.status).toBe('fail');
    expect(e?.oversold).toBeGreaterThan(0);
    expect(e?.problems).toContain(`oversold ${e?.oversold}`);
  });
});
