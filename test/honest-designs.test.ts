/**
 * No false alarms on honest designs: six correct strategies built differently from the built-in ones
 * (no pause points, a reserve over two transactions, no stock counter, the decision in plpgsql, one
 * statement, no backdate hook) run through every scenario on the real command line. Each case must pass or be n/a for a
 * capability the design lacks, never fail.
 */

import { describe, expect, inject, it } from 'vitest';
import { SCENARIOS } from '../harness/contracts/reservation/case/index.ts';
import type { CaseResult } from '../harness/contracts/reservation/verdict/case-result.ts';
import { failsTheRun } from '../harness/verdict/case-result.ts';
import { SCENARIOS_WITHOUT_CLUSTER } from './default-run.ts';
import { runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

const FIXTURES = [
  'no-pause-points',
  'two-transaction-reserve',
  'advisory-count',
  'plpgsql-function',
  'single-statement',
  'no-backdate',
] as const;

/** The scenarios that need a hold to expire: a design without the backdate hook runs them on real time. */
const EXPIRING = SCENARIOS.filter((s) => (s.operations ?? []).includes('expire')).map((s) => s.id);

/** Scenarios that hold or kill an operation at a pause point: nothing to drive without one. */
const NEED_A_PAUSE_POINT = SCENARIOS.filter((s) => (s.requires ?? []).length > 0).map((s) => s.id);

/** Where a fixture's declared points meet a scenario's need: these must be measured, and pass. */
const MEASURED_THROUGH_PAUSE_POINTS: Record<string, readonly string[]> = {
  'two-transaction-reserve': ['false-sold-out', 'contention-aborts', 'user-race', 'crash-recovery'],
  'advisory-count': ['false-sold-out', 'crash-recovery'],
  'plpgsql-function': ['false-sold-out', 'crash-recovery'],
  'single-statement': ['crash-recovery'],
};

const caseOf = (cases: readonly CaseResult[], scenario: string, strategy: string) =>
  cases.find((c) => c.scenario === scenario && c.strategy === strategy);

describe('honest designs (test/fixtures/honest/)', () => {
  it('pass every scenario they can be driven through, and are n/a with a reason elsewhere', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      FIXTURES.map((f) => `test/fixtures/honest/${f}.ts`).join(','),
    ]);

    expect(report.cases).toHaveLength(FIXTURES.length * SCENARIOS_WITHOUT_CLUSTER.length);
    const failed = report.cases.filter(failsTheRun).map((c) => `${c.id}: ${c.boundary}`);
    expect(failed).toEqual([]);

    for (const c of report.cases) {
      if (c.status !== 'n/a') continue;
      expect(c.reason.trim(), c.id).not.toBe('');
      // None of them opts out of a scenario: every n/a is a capability the design does not have, except
      // the scenarios that must restart a server the run was given by URL, and give-up, which a design
      // that never retries has no part in.
      if (!/no way to restart|declares no retry bound/.test(c.reason))
        expect(c.coverage.missing, c.id).not.toEqual([]);
    }

    expect(NEED_A_PAUSE_POINT.length).toBeGreaterThan(0);
    for (const scenario of NEED_A_PAUSE_POINT) {
      expect(caseOf(report.cases, scenario, 'no-pause-points')?.status, scenario).toBe('n/a');
    }
    for (const [strategy, scenarios] of Object.entries(MEASURED_THROUGH_PAUSE_POINTS)) {
      for (const scenario of scenarios) {
        expect(caseOf(report.cases, scenario, strategy)?.status, `${scenario}/${strategy}`).toBe('pass');
      }
    }
    // hot-row without backdate: every expiring scenario is measured, and passes, its holds run out on time.
    expect(EXPIRING.length).toBeGreaterThanOrEqual(7);
    for (const scenario of EXPIRING) {
      expect(caseOf(report.cases, scenario, 'no-backdate')?.status, scenario).toBe('pass');
    }

    // Its reserve declares between-transactions, its expire only before-commit: the kill is at expire's own.
    const crashed = caseOf(report.cases, 'crash-recovery', 'two-transaction-reserve');
    expect(crashed?.status === 'pass' ? crashed.coverage.pausePoints : crashed).toEqual([
      'expire:before-commit',
    ]);

    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  }, 300_000);

  it('and a control without the hook is still caught on real time (unconditional-expire in expire-replay)', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      'test/fixtures/paths/unconditional-expire-no-backdate.ts',
      '--scenario',
      'expire-replay',
    ]);
    const [c] = report.cases;
    expect(c?.status, c?.boundary).toBe('pass');
    expect(c && 'fired' in c ? c.fired : []).toContain('oversold');
    expect(c && 'phases' in c ? JSON.stringify(c.phases) : '').toMatch(/database clock \+1000 ms/);
    expect(run.code).toBe(0);
  });
});
