/**
 * Every check proves it can fail: for each invariant and each kind of expectation, a fixture strategy that
 * breaks that one check (test/fixtures/checks/), run through the real command line, fails the run for that
 * reason (the fixtures of one scenario share a run). docs/verdicts.md's "Every check can fail" table lists
 * the same pairs. A run that fails writes its `--junit` file all the same, with the report's counts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { CheckName } from '../strategies/contract.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { countsOf, parseJunit } from './junit-reader.ts';
import { measured, runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const scratch = mkdtempSync(join(tmpdir(), 'reservebench-checks-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const fixture = (name: string) => `test/fixtures/checks/${name}.ts`;

interface Breaker {
  check: CheckName;
  strategy: string;
  scenario: string;
  /** The checks that fire besides the one under test (none where the fixture breaks it alone). */
  alsoFires: CheckName[];
  args?: string[];
}

const BREAKERS: Breaker[] = [
  {
    check: 'drift',
    strategy: 'leaky-counter',
    scenario: 'duplicate-key',
    // It never takes a unit: the probe sells 41 where remaining() says 40.
    alsoFires: ['linearizable', 'sellsWhatRemains'],
  },
  { check: 'duplicateKey', strategy: 'replay-logged-as-row', scenario: 'duplicate-key', alsoFires: [] },
  { check: 'auditMismatch', strategy: 'miscounted-audit', scenario: 'contention', alsoFires: [] },
  {
    check: 'outcomes',
    strategy: 'limit-answered-sold-out',
    scenario: 'user-limit',
    alsoFires: ['linearizable'],
  },
  { check: 'observations', strategy: 'expire-miscount', scenario: 'expiry', alsoFires: [] },
  {
    check: 'blocking',
    strategy: 'hot-row-without-wait',
    scenario: 'false-sold-out',
    alsoFires: ['linearizable'],
  },
  {
    check: 'lostAcknowledged',
    strategy: 'ack-then-rollback',
    scenario: 'contention',
    alsoFires: ['outcomes', 'linearizable'],
  },
  {
    check: 'unacknowledgedActive',
    strategy: 'silent-hold',
    scenario: 'key-reuse',
    alsoFires: ['outcomes', 'linearizable'],
  },
  { check: 'errors', strategy: 'throws-on-limit', scenario: 'user-limit', alsoFires: ['outcomes'] },
  {
    check: 'heldAfterDisable',
    strategy: 'disable-without-wait',
    scenario: 'disable-in-flight',
    alsoFires: [],
  },
  { check: 'sellsWhatRemains', strategy: 'remaining-from-holds', scenario: 'user-limit', alsoFires: [] },
  { check: 'booksMatchAnswers', strategy: 'confirm-unbooked', scenario: 'lifecycle-matrix', alsoFires: [] },
  { check: 'gaveUpWrote', strategy: 'give-up-keeps-key', scenario: 'give-up', alsoFires: ['linearizable'] },
];

/** The breakers of a scenario run in one CLI run, started by the first test that reads it. */
const runsOfScenario = new Map<string, ReturnType<typeof runJson>>();
function runOfScenario(scenario: string): ReturnType<typeof runJson> {
  const started = runsOfScenario.get(scenario);
  if (started) return started;
  const strategies = BREAKERS.filter((b) => b.scenario === scenario).map((b) => fixture(b.strategy));
  const run = runJson(serverUrl, ['--strategy', strategies.join(','), '--scenario', scenario]);
  runsOfScenario.set(scenario, run);
  return run;
}

describe('each check fails a strategy that breaks it', () => {
  it.each(BREAKERS)('$check: $strategy fails $scenario', async ({ check, strategy, scenario, alsoFires }) => {
    const { run, report } = await runOfScenario(scenario);
    expect(run.code).toBe(1);
    expect(report.ok).toBe(false);
    // Alone in its run, a fixture is the run's one case whatever its id (hot-row-without-wait keeps hot-row's).
    const c = report.cases.length === 1 ? report.cases[0] : report.cases.find((x) => x.strategy === strategy);
    expect(c?.status).toBe('fail');
    const fired = c && 'fired' in c ? c.fired : [];
    expect([...fired].sort()).toEqual([check, ...alsoFires].sort());
  });

  it("oversold and duplicateActive: the flash-sale lab's controls are caught by the check they name (check-then-act, no-active-index)", {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['check-then-act', 'no-active-index']);
    expect(run.code).toBe(0);
    expect(measured(report.cases, 'contention/check-then-act').fired).toContain('oversold');
    expect(measured(report.cases, 'user-race/no-active-index').fired).toContain('duplicateActive');
    for (const id of ['contention/check-then-act', 'user-race/no-active-index']) {
      expect(measured(report.cases, id).status).toBe('pass');
    }
  });

  it('the probes: each of their controls is caught by its own check, and by no other', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const controls = {
      'user-limit/take-before-claim': ['sellsWhatRemains'],
      'lifecycle-matrix/confirm-off-the-books': ['booksMatchAnswers'],
      'give-up/give-up-releases-claim': ['gaveUpWrote', 'linearizable'],
    };
    const { run, report } = await defaultRunOf([
      'take-before-claim',
      'confirm-off-the-books',
      'give-up-releases-claim',
    ]);
    expect(run.code).toBe(0);
    for (const [id, checks] of Object.entries(controls)) {
      const c = measured(report.cases, id);
      expect(c.status).toBe('pass');
      expect([...c.fired].sort()).toEqual([...checks].sort());
    }
    expect(measured(report.cases, 'user-limit/take-before-claim').sellsWhatRemains).toEqual([
      { sku: 'sku-lab-01', expected: 39, sold: 32, answers: { HELD: 32, SOLD_OUT: 2 } },
    ]);
  });

  it('a control caught only by another check fails as "caught for the wrong reason"', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      fixture('wrong-reason-control'),
      '--scenario',
      'contention',
    ]);
    expect(run.code).toBe(1);
    const c = measured(report.cases, 'contention/wrong-reason-control');
    expect(c.status).toBe('fail');
    expect(c.problems[0]).toMatch(/^caught for the wrong reason: oversold/);
  });

  it('coverage: a strategy without expire is n/a (reported) in expiry, and --require-coverage fails the run', async () => {
    const args = ['--strategy', 'test/fixtures/lock-first.ts', '--scenario', 'expiry,contention'];
    const lenient = await runJson(serverUrl, args);
    expect(lenient.run.code).toBe(0);
    const skipped = lenient.report.cases.find((c) => c.id === 'expiry/lock-first');
    expect(skipped).toMatchObject({ status: 'n/a', coverage: { missing: ['no expire'] } });
    expect(lenient.report.coverage[0]?.cells).toEqual({ expiry: 'not covered', contention: 'pass' });
    expect(lenient.report.boundary[0]?.boundary).toMatch(/not covered: expiry — no expire/);

    // --junit (issue 27): written for the failing run too, where CI needs it most, in a folder it made.
    const junit = join(scratch, 'ci', 'junit.xml');
    const strict = await runJson(serverUrl, [...args, '--require-coverage', '--junit', junit]);
    expect(strict.run.code).toBe(1);
    expect(strict.report.ok).toBe(false);
    expect(strict.report.uncovered).toEqual([expect.stringMatching(/^expiry\/lock-first: not covered/)]);
    const counts = countsOf(parseJunit(readFileSync(junit, 'utf8')));
    expect(counts).toMatchObject({ tests: strict.report.cases.length, failures: 1, errors: 0, skipped: 0 });
    expect(counts.cases.map((c) => c.name).sort()).toEqual(strict.report.cases.map((c) => c.id).sort());
    const uncovered = counts.cases.find((c) => c.name === 'expiry/lock-first');
    expect(uncovered?.failure?.message).toBe('not covered: expiry — no expire (--require-coverage)');
  });
});

describe('a run that judged nothing does not pass', () => {
  it('every case n/a (db-crash on a server given by URL): exit 1, one line says so', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'db-crash',
      '--strategy',
      'hot-row,async-commit',
    ]);
    expect(report.cases.map((c) => c.status)).toEqual(['n/a', 'n/a']);
    expect(report.ok).toBe(false);
    const text = await runCli(
      ['run', '--scenario', 'db-crash', '--strategy', 'async-commit', '--explore-budget', '0'],
      {
        DATABASE_URL: serverUrl,
      },
    );
    expect(text.stdout).toMatch(
      /NOT ok: no case was measured, every one was n\/a: a run that judged nothing does not pass \(exit 1\)/,
    );
    expect([run.code, text.code]).toEqual([1, 1]);
  });
});

describe('strategies that grade themselves are judged by the harness', () => {
  it('an oversold design fails on the harness-computed counts whether its audit lies (two ways) or not', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      `${fixture('audit-from-counter')},${fixture('audit-available-from-active')},test/fixtures/oversell-declared-safe.ts`,
      '--scenario',
      'contention',
      '--stock',
      '2',
      '--clients',
      '5',
    ]);
    expect(run.code).toBe(1);
    for (const id of ['audit-from-counter', 'audit-available-from-active', 'oversell-declared-safe']) {
      const c = measured(report.cases, `contention/${id}`);
      expect(c.status, id).toBe('fail');
      // Every client read 2 before any wrote: 5 active holds for 2 units, whatever the audit says.
      expect(c.invariants, id).toMatchObject({ total: 2, active: 5, oversold: 3 });
      expect(c.fired, id).toEqual(expect.arrayContaining(['oversold', 'drift']));
    }
    expect(measured(report.cases, 'contention/audit-from-counter').audit?.skus[0]?.active).toBe(1);
    expect(measured(report.cases, 'contention/audit-from-counter').fired).toContain('auditMismatch');
    expect(measured(report.cases, 'contention/audit-available-from-active').fired).toContain('auditMismatch');
    expect(measured(report.cases, 'contention/oversell-declared-safe').fired).not.toContain('auditMismatch');
  });

  it('a module naming an unknown pause point, or missing members, is refused when it loads (exit 2, one line)', async () => {
    const bad = await runCli(['run', '--strategy', 'test/fixtures/bad-pause-point.ts'], {
      DATABASE_URL: serverUrl,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/pausePoints\.reserve\.0 .*got "nope"/);
    const half = await runCli(['run', '--strategy', 'test/fixtures/not-a-strategy.ts'], {
      DATABASE_URL: serverUrl,
    });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(
      /title is missing.*setup is missing.*status is missing.*remaining is missing/,
    );
  });
});
