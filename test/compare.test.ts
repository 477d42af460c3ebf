/**
 * `reservebench compare` on a real bench report: the same report twice is no difference (exit 0), the
 * report with one series' trials slowed by half is a regression (exit 1) unless the threshold is wider
 * than the evidence, and anything that is not a bench report with trials exits 2 with one line. Exit
 * codes and verdicts only; speeds are never asserted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { benchDesign } from '../harness/bench/bench-design.ts';
import { runBench } from '../harness/bench/run-bench.ts';
import { COMPARE } from '../harness/cli/commands/compare-command.ts';
import { runWith } from '../harness/cli/main.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { HarnessError } from '../harness/errors.ts';
import { type BenchReport, buildBenchReport } from '../harness/report/bench/bench-report.ts';
import type { Comparison } from '../harness/report/bench/compare.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const folder = mkdtempSync(join(tmpdir(), 'reservebench-compare-'));
const basePath = join(folder, 'base.json');
const slowerPath = join(folder, 'slower.json');
let base: BenchReport;
/** The series made slower in NEW. */
let halved: { strategy: string; clients: number };

function write(name: string, content: unknown): string {
  const path = join(folder, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function compare(args: {
  base: string;
  new: string;
  'fail-on-regression'?: string;
  json?: boolean;
}): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  try {
    return { code: await runWith(COMPARE, { json: false, ...args }), stdout };
  } finally {
    spy.mockRestore();
  }
}

async function badInput(args: { base: string; new: string; 'fail-on-regression'?: string }): Promise<string> {
  const error = await compare(args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HarnessError);
  const { exitCode, message } = error as HarnessError;
  expect(exitCode).toBe(2);
  expect(message).not.toContain('\n');
  return message;
}

beforeAll(async () => {
  const result = await runBench({
    contract: RESERVATION.id,
    designs: [benchDesign(RESERVATION, await loadStrategy('hot-row'))],
    clients: [1, 4],
    trials: 3,
    warmupMs: 100,
    durationMs: 300,
    stock: 20_000,
    timeoutMs: 60_000,
    databaseUrl: serverUrl,
  });
  expect(result.ok).toBe(true);
  base = buildBenchReport(result);
  writeFileSync(basePath, JSON.stringify(base));

  // Halving alone can sit inside the noise: on a shared machine short trials of one series differ up to 2×,
  // and with 3 trials a side the interval spans all of it. So the series is scaled until its fastest NEW
  // trial is half its slowest BASE trial: a regression of 50% or more, whatever the noise was.
  const target = base.bench[0];
  if (!target) throw new Error('the bench returned no series');
  halved = { strategy: target.strategy, clients: target.clients };
  const throughputs = target.trials.map((t) => t.throughput);
  const factor = (0.5 * Math.min(...throughputs)) / Math.max(...throughputs);
  const slower: BenchReport = structuredClone(base);
  for (const e of slower.bench) {
    if (e.strategy !== halved.strategy || e.clients !== halved.clients) continue;
    for (const t of e.trials) t.throughput *= factor;
    e.throughput *= factor;
    e.median.throughput *= factor;
  }
  writeFileSync(slowerPath, JSON.stringify(slower));
}, 120_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('reservebench compare', () => {
  it('finds no difference between a report and itself: exit 0', async () => {
    const run = await compare({ base: basePath, new: basePath });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('| strategy');
    expect(run.stdout).toContain('BASE median (reservations/s)');
    expect(run.stdout).toContain('95% CI of NEW ÷ BASE (×)');
    expect(run.stdout).toContain('No regression');
    const json = await compare({ base: basePath, new: basePath, json: true });
    const comparison = JSON.parse(json.stdout) as Comparison;
    expect(comparison.series).toHaveLength(base.bench.length);
    for (const s of comparison.series) {
      expect(s).toMatchObject({ verdict: 'no difference', regression: false, ratio: 1 });
      expect(s.ci95?.low).toBeLessThanOrEqual(1);
      expect(s.ci95?.high).toBeGreaterThanOrEqual(1);
    }
  });

  it('calls one series slowed by half a regression at the default 10%: exit 1', async () => {
    const run = await compare({ base: basePath, new: slowerPath, json: true });
    expect(run.code).toBe(1);
    const comparison = JSON.parse(run.stdout) as Comparison;
    expect(comparison).toMatchObject({ failOnRegressionPct: 10, regressions: 1 });
    for (const s of comparison.series) {
      const isHalved = s.strategy === halved.strategy && s.clients === halved.clients;
      expect(s.verdict, `${s.strategy} × ${s.clients}`).toBe(isHalved ? 'slower' : 'no difference');
      expect(s.regression).toBe(isHalved);
      // With 3 trials a side the interval reaches the extreme ratio: fastest NEW ÷ slowest BASE.
      if (isHalved) expect(s.ci95?.high).toBe(0.5);
    }
    const table = await compare({ base: basePath, new: slowerPath });
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('slower, **regression**');
    expect(table.stdout).toContain('**1 regression(s)**');
  });

  it('passes a confident slowdown smaller than --fail-on-regression, and calls the reverse faster', async () => {
    // The slowed series' interval ends at 0.5: a 60% threshold asks for an upper bound below 0.4.
    const wide = await compare({ base: basePath, new: slowerPath, 'fail-on-regression': '60', json: true });
    expect(wide.code).toBe(0);
    const slower = (JSON.parse(wide.stdout) as Comparison).series.filter((s) => s.verdict === 'slower');
    expect(slower).toHaveLength(1);
    expect(slower[0]?.regression).toBe(false);

    const reverse = await compare({ base: slowerPath, new: basePath, json: true });
    expect(reverse.code).toBe(0);
    const faster = (JSON.parse(reverse.stdout) as Comparison).series.filter((s) => s.verdict === 'faster');
    expect(faster.map((s) => [s.strategy, s.clients])).toEqual([[halved.strategy, halved.clients]]);
  });

  it('refuses what is not a bench report with trials: exit 2, one line', async () => {
    expect(await badInput({ base: join(folder, 'missing.json'), new: basePath })).toMatch(
      /^BASE ".*missing\.json" cannot be read: ENOENT/,
    );
    expect(await badInput({ base: basePath, new: write('text.json', 'not json') })).toMatch(
      /^NEW ".*text\.json" is not JSON/,
    );
    expect(await badInput({ base: write('run.json', { ok: true, cases: [] }), new: basePath })).toMatch(
      /is not a bench report with trials \(environment: /,
    );
    const oneTrialFormat = {
      ...base,
      bench: base.bench.map(({ trials: _trials, ...rest }) => rest),
    };
    expect(await badInput({ base: write('old.json', oneTrialFormat), new: basePath })).toMatch(
      /is not a bench report with trials \(bench\.0\.trials: /,
    );
    const other = { ...base, bench: base.bench.map((e) => ({ ...e, strategy: `${e.strategy}-other` })) };
    expect(await badInput({ base: basePath, new: write('other.json', other) })).toBe(
      'BASE and NEW have no series (strategy × clients × admission) in common',
    );
    expect(await badInput({ base: basePath, new: basePath, 'fail-on-regression': '-5' })).toMatch(
      /--fail-on-regression must be a whole number from 0 to 99, got "-5"/,
    );
  });

  it('exits 0, 1 and 2 from the command line', async () => {
    expect((await runCli(['compare', basePath, basePath])).code).toBe(0);
    expect((await runCli(['compare', basePath, slowerPath])).code).toBe(1);
    const bad = await runCli(['compare', basePath, join(folder, 'missing.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^reservebench: NEW ".*missing\.json" cannot be read: [^\n]*\n$/);
  });
});
