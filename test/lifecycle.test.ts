/**
 * Expiry, confirm and crash recovery on the safe designs, and the flash-sale lab's three counter-examples
 * (docs/sources.md) caught on every run. A real child process is killed with SIGKILL. The cases the
 * default run drives as they are here are read from it (test/default-run.ts), not run again.
 */
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRun, defaultRunOf } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const SAFE = ['hot-row', 'skip-locked-slots'];

describe('expiry returns stock exactly once (the expiry run and the confirm-vs-expire race)', () => {
  it('expiry: 8, replay 0, 4 concurrent replays 0, the other 12 by 4 concurrent jobs 12; confirm-vs-expire handles each row once', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(SAFE);
    for (const strategy of SAFE) {
      const expiry = measured(report.cases, `expiry/${strategy}`);
      expect(expiry.status).toBe('pass');
      expect(expiry.observations?.unitsReturned).toEqual([8, 0, 0, 12]);
      expect(expiry.invariants).toMatchObject({ total: 40, available: 40, active: 0, drift: 0 });
      expect(expiry.invariants.lostAcknowledged).toBe(0);

      const race = measured(report.cases, `confirm-vs-expire/${strategy}`);
      expect(race.status).toBe('pass');
      const confirmed = Number(race.observations?.confirmed);
      const returned = Number(race.observations?.unitsReturned);
      expect(confirmed + returned).toBe(40);
      expect(race.invariants).toMatchObject({ active: confirmed, available: returned, drift: 0 });
    }
    expect(run.code).toBe(0);
  });
});

describe('crash recovery with kill -9 of the expiry job', () => {
  it('nothing is returned while the child is stopped or after it is killed; the rerun returns 5, then 0; 5 of 10 new clients are HELD', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(SAFE);
    for (const strategy of SAFE) {
      const c = measured(report.cases, `crash-recovery/${strategy}`);
      expect(c.status).toBe('pass');
      expect(c.observations).toMatchObject({
        crashedAt: 'before-commit',
        childSignal: 'SIGKILL',
        availableWhileChildStopped: 0,
        availableAfterKill: 0,
        rerunUnits: [5, 0],
        newHeld: 5,
      });
      expect(c.invariants).toMatchObject({ total: 10, available: 0, active: 10, drift: 0, oversold: 0 });
    }
    expect(run.code).toBe(0);
  });
});

describe("the flash-sale lab's counter-examples are caught every run (expect: violate)", () => {
  it('unconditional-expire: replayed expiry oversells by 5 although available never exceeds total', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['unconditional-expire', 'hot-row']);
    const control = measured(report.cases, 'expire-replay/unconditional-expire');
    expect(control).toMatchObject({ expect: 'violate', status: 'pass' });
    expect(control.observations).toMatchObject({ unitsReturned: [5, 5], newHeld: 10 });
    expect(control.invariants).toMatchObject({ total: 10, available: 0, active: 15, oversold: 5, drift: -5 });
    const safe = measured(report.cases, 'expire-replay/hot-row');
    expect(safe.observations).toMatchObject({ unitsReturned: [5, 0], newHeld: 5 });
    expect(safe.invariants).toMatchObject({ active: 10, oversold: 0, drift: 0 });
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  });

  it('split-tx-release: killed between its transactions, the rerun returns the units again: oversold 5', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['split-tx-release']);
    const control = measured(report.cases, 'crash-recovery/split-tx-release');
    expect(control).toMatchObject({ expect: 'violate', status: 'pass' });
    expect(control.observations).toMatchObject({
      crashedAt: 'between-transactions',
      childSignal: 'SIGKILL',
      availableWhileChildStopped: 5,
      rerunUnits: [5, 0],
      newHeld: 10,
    });
    expect(control.invariants).toMatchObject({ active: 15, oversold: 5, drift: -5 });
    expect(run.code).toBe(0);
  });

  it('no-active-index: both sessions read before either writes → 2 active holds for one user; hot-row: HELD 1 + USER_LIMIT 1', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'user-race',
      '--strategy',
      'no-active-index,hot-row',
      '--repeat',
      '3',
    ]);
    for (let n = 1; n <= 3; n++) {
      const control = measured(report.cases, `user-race/no-active-index#${n}`);
      expect(control).toMatchObject({ expect: 'violate', status: 'pass', outcomes: { HELD: 2 } });
      expect(control.invariants.duplicateActive).toBe(1);
      const safe = measured(report.cases, `user-race/hot-row#${n}`);
      expect(safe.outcomes).toEqual({ HELD: 1, USER_LIMIT: 1 });
      expect(safe.steps?.find((s) => s.step === 's2-read')?.blocked).toBe(true);
      expect(safe.invariants.duplicateActive).toBe(0);
    }
    const rows = new Map(report.boundary.map((b) => [b.strategy, b]));
    expect(rows.get('no-active-index')?.boundary).toMatch(/caught: duplicateActive 1/);
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  });
});

describe('the whole default run', () => {
  // Every scenario on every built-in design: the longest test, given its own limit.
  it('passes with every control caught and every safe design holding', { timeout: 600_000 }, async () => {
    const { run, report } = await defaultRun();
    const failed = report.cases
      .filter((c) => c.status === 'fail' || c.status === 'broken')
      .map((c) => `${c.id}: ${c.boundary}`);
    expect(failed).toEqual([]);
    const controls = [
      'check-then-act',
      'unconditional-expire',
      'split-tx-release',
      'no-active-index',
      'memory-quota-config-restart',
    ];
    for (const control of controls) {
      const row = report.boundary.find((b) => b.strategy === control);
      expect(row?.boundary, control).toMatch(/^caught: /);
    }
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  });
});
