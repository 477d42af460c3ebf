/**
 * Issue 27, item 4, on a real server: a design written as plain SQL runs in the same scenarios, checks,
 * tables and bench as a module. strategies/sql/conditional-update.sql passes every scenario of the default
 * run it can take part in (its pause points held by the advisory-lock barrier, seen waiting in pg_locks);
 * its read-then-decrement twin is caught by the check it names; a file lying in its audit is failed by the
 * harness's own read; a file the server refuses is one line naming the file and line, before any case; and
 * a bench of it runs, its worker threads rebuilding the design from the file's URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { BenchReport } from '../harness/report/bench/bench-report.ts';
import type { Report } from '../harness/report/report.ts';
import { oneLineProblem, runBounded } from './bounded-cli.ts';
import { writeBrokenSql } from './broken-sql-designs.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { measured, runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const broken = mkdtempSync(join(tmpdir(), 'reservebench-broken-sql-'));
afterAll(() => rmSync(broken, { recursive: true, force: true }));
const DESIGN = 'strategies/sql/conditional-update.sql';
const CONTROL = 'strategies/sql/controls/read-then-decrement.sql';

describe('a design in plain SQL (--strategy design.sql)', () => {
  it('passes every scenario of the default run hot-row, its design in TypeScript, passes', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await runJson(serverUrl, ['--strategy', DESIGN]);
    expect(run.code, run.stderr).toBe(0);
    // hot-row's cases are the shared default run's (test/default-run.ts), on the same server.
    const { report: hotRow } = await defaultRunOf(['hot-row']);
    const statuses = (cases: Report['cases'], strategy: string) =>
      Object.fromEntries(cases.filter((c) => c.strategy === strategy).map((c) => [c.scenario, c.status]));
    const sql = statuses(report.cases, 'sql-conditional-update');
    expect(sql).toEqual(statuses(hotRow.cases, 'hot-row'));
    expect(Object.values(sql).filter((s) => s !== 'pass' && s !== 'n/a')).toEqual([]);
    // It sits out only what hot-row does too (no disable; a database crash on a server not its own).
    const passed = Object.values(sql).filter((s) => s === 'pass').length;
    expect(passed).toBeGreaterThan(Object.keys(sql).length - passed);
  });

  it('catches the read-then-decrement twin by oversold, and fails a file whose audit lies', async () => {
    const lyingAudit = writeBrokenSql(broken, 'lying-audit').path;
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      `${CONTROL},${lyingAudit}`,
      '--scenario',
      'contention',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const control = measured(report.cases, 'contention/sql-read-then-decrement');
    expect(control.status).toBe('pass');
    expect(control.fired).toContain('oversold');
    const lying = measured(report.cases, 'contention/sql-lying-audit');
    expect(lying.status).toBe('fail');
    expect(lying.fired).toEqual(['auditMismatch']);
  });

  it.each([
    ['syntax-error', (line: number) => `syntax-error.sql:${line}: syntax error at or near "SELEC"\n`],
    ['wrong-signature', () => 'wrong-signature.sql: remaining(text) must return integer, not bigint\n'],
  ] as const)(
    'refuses the shipped design broken as %s in one line before any case (exit 2)',
    async (name, message) => {
      const { path, line } = writeBrokenSql(broken, name);
      const run = await runBounded(['run', '--strategy', path, '--scenario', 'contention'], {
        env: { DATABASE_URL: serverUrl },
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(oneLineProblem(run.stderr)).toBe(true);
      expect(run.stderr).toMatch(/^reservebench: \S+\//);
      expect(run.stderr.endsWith(`/${message(line)}`), run.stderr).toBe(true);
    },
  );

  it('refuses a file the server rejects in serve too, before its tables, in one line (exit 2)', async () => {
    const { path, line } = writeBrokenSql(broken, 'syntax-error');
    const served = await runBounded(['serve', '--strategy', path, '--port', '0'], {
      env: { DATABASE_URL: serverUrl },
      timeoutMs: 60_000,
    });
    expect(served.code, served.stderr).toBe(2);
    expect(oneLineProblem(served.stderr)).toBe(true);
    expect(served.stderr).toContain(`syntax-error.sql:${line}: syntax error at or near "SELEC"`);
  });

  it('runs in the bench, every series audited', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-sql-bench-'));
    try {
      const run = await runCli(
        [
          'bench',
          '--json',
          '--strategy',
          DESIGN,
          '--clients',
          '1,4',
          '--trials',
          '1',
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
      expect(report.bench.map((e) => [e.strategy, e.clients, e.status])).toEqual([
        ['sql-conditional-update', 1, 'ok'],
        ['sql-conditional-update', 4, 'ok'],
      ]);
      for (const entry of report.bench) {
        expect(entry.errors).toEqual({});
        expect(entry.outcomes.HELD ?? 0).toBeGreaterThan(0);
        expect([entry.drift, entry.oversold]).toEqual([0, 0]);
      }
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
  });
});
