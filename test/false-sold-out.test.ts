/**
 * skip-locked-slots beside hot-row: both never oversell; the flash-sale lab's false sold-out, as a
 * deterministic interleaving, shows the one boundary where they differ (skip → SOLD_OUT while a unit is left;
 * wait → blocked, then HELD).
 */
import { describe, expect, inject, it } from 'vitest';
import type { MeasuredCase } from '../harness/contracts/reservation/verdict/case-result.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

function step(c: MeasuredCase, name: string) {
  const found = c.steps?.find((s) => s.step === name);
  if (!found) throw new Error(`${c.id} has no step ${name}`);
  return found;
}

describe('false-sold-out (2 units; t1 holds one uncommitted, t2 takes the other, t3 asks, t1 rolls back)', () => {
  it('skip-locked-slots answers t3 SOLD_OUT without blocking while 1 unit is left; hot-row blocks t3, then HELD — every run', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'false-sold-out',
      '--strategy',
      'skip-locked-slots,hot-row',
      '--repeat',
      '5',
    ]);
    expect(run.code).toBe(0);
    for (let n = 1; n <= 5; n++) {
      const skip = measured(report.cases, `false-sold-out/skip-locked-slots#${n}`);
      expect(skip.status).toBe('pass');
      expect(step(skip, 't1-take').result).toMatchObject({ status: 'ok', paused: 'before-commit' });
      expect(step(skip, 't2-take')).toMatchObject({
        blocked: false,
        result: { answer: { outcome: 'HELD' } },
      });
      expect(step(skip, 't3-ask')).toMatchObject({
        blocked: false,
        result: { answer: { outcome: 'SOLD_OUT' } },
      });
      expect(step(skip, 't1-rollback').result).toMatchObject({ status: 'ok', rolledBack: true });
      expect(skip.outcomes).toEqual({ HELD: 1, SOLD_OUT: 1, ROLLED_BACK: 1 });
      expect(skip.invariants).toMatchObject({ total: 2, available: 1, active: 1, drift: 0, falseSoldOut: 1 });
      expect(skip.boundary).toMatch(/^false sold-out: 1 SOLD_OUT while 1 unit/);

      const hot = measured(report.cases, `false-sold-out/hot-row#${n}`);
      expect(hot.status).toBe('pass');
      expect(step(hot, 't3-ask')).toMatchObject({ blocked: true, result: { answer: { outcome: 'HELD' } } });
      expect(step(hot, 't1-rollback').result).toMatchObject({ status: 'ok', rolledBack: true });
      expect(hot.outcomes).toEqual({ HELD: 2, ROLLED_BACK: 1 });
      expect(hot.invariants).toMatchObject({ total: 2, available: 0, active: 2, drift: 0, falseSoldOut: 0 });
    }
    const rows = new Map(report.boundary.map((b) => [b.strategy, b]));
    expect(rows.get('skip-locked-slots')?.shownBy).toBe('false-sold-out/skip-locked-slots#1');
    expect(rows.get('skip-locked-slots')?.boundary).toMatch(/false sold-out/);
    expect(rows.get('hot-row')?.boundary).toMatch(/blocked, then completed: t2-take, t3-ask/);
    expect(rows.get('hot-row')?.shownBy).toBe('false-sold-out/hot-row#1');
  });
});

describe('skip-locked-slots under the foundation scenarios', () => {
  it('holds 40 of 150, replays a duplicate key, limits a user and rejects a reused key', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['skip-locked-slots']);
    const contention = measured(report.cases, 'contention/skip-locked-slots');
    expect(contention.outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(contention.invariants).toMatchObject({
      active: 40,
      available: 0,
      drift: 0,
      oversold: 0,
      falseSoldOut: 0,
    });
    expect(measured(report.cases, 'duplicate-key/skip-locked-slots').outcomes).toEqual({
      HELD: 1,
      REPLAY: 15,
    });
    expect(measured(report.cases, 'user-limit/skip-locked-slots').outcomes).toEqual({
      HELD: 1,
      USER_LIMIT: 7,
    });
    const reuse = measured(report.cases, 'key-reuse/skip-locked-slots');
    expect(reuse.outcomes).toEqual({ HELD: 1, KEY_REUSED: 2 });
    expect(reuse.invariants).toMatchObject({ total: 80, available: 79, active: 1, drift: 0 });
    expect(run.code).toBe(0);
  });
});

describe('contention-aborts (every 4th client rolls back at before-commit)', () => {
  it('hot-row sells every unit (falseSoldOut 0); skip-locked accounts every unit as HELD or false sold-out', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['hot-row', 'skip-locked-slots']);
    const hot = measured(report.cases, 'contention-aborts/hot-row');
    expect(hot.status).toBe('pass');
    expect(hot.outcomes.HELD).toBe(40);
    expect(hot.invariants).toMatchObject({ active: 40, drift: 0, oversold: 0, falseSoldOut: 0 });
    const skip = measured(report.cases, 'contention-aborts/skip-locked-slots');
    expect(skip.status).toBe('pass');
    expect((skip.outcomes.HELD ?? 0) + skip.invariants.falseSoldOut).toBe(40);
    expect(skip.invariants).toMatchObject({ drift: 0, oversold: 0 });
    for (const c of [hot, skip]) {
      const answered = Object.values(c.outcomes).reduce((a, b) => a + b, 0);
      expect(answered).toBe(150);
      expect(c.outcomes.ROLLED_BACK ?? 0).toBeLessThanOrEqual(38);
    }
    expect(run.code).toBe(0);
  });
});

describe('every order of the interleavings (--permutations all)', () => {
  it('false-sold-out and user-race hold in every valid order; no-active-index is caught in its listed one', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'false-sold-out,user-race',
      '--strategy',
      'hot-row,skip-locked-slots,memory-quota,no-active-index',
      '--permutations',
      'all',
    ]);
    expect(run.code).toBe(0);
    for (const strategy of ['hot-row', 'skip-locked-slots', 'memory-quota']) {
      const fso = measured(report.cases, `false-sold-out/${strategy}`);
      // 2 steps of t1 among 4: 4!/2! orders, none can leave a session waiting on an idle one.
      expect(fso.permutations, strategy).toHaveLength(12);
      expect(fso.permutations?.every((p) => p.status === 'pass')).toBe(true);
      for (const p of fso.permutations ?? []) {
        const answered = Object.values(p.outcomes).reduce((a, b) => a + b, 0);
        expect(answered, `${strategy} ${p.order}`).toBe(3);
      }
      const race = measured(report.cases, `user-race/${strategy}`);
      expect(race.permutations).toHaveLength(6);
      for (const p of race.permutations ?? []) {
        if (p.status === 'invalid') continue;
        expect(p, `${strategy} ${p.order}`).toMatchObject({
          status: 'pass',
          outcomes: { HELD: 1, USER_LIMIT: 1 },
        });
      }
    }
    // hot-row makes s2's read wait on s1's uncommitted key: the orders that then ask s2 to go on first can
    // never finish and are reported invalid, as PostgreSQL's isolation tester reports them.
    const hotRace = measured(report.cases, 'user-race/hot-row');
    expect(hotRace.permutations?.filter((p) => p.status === 'invalid')).toHaveLength(2);
    expect(hotRace.permutations?.[0]).toMatchObject({
      order: 's1-read s2-read s1-write s2-write',
      blocked: ['s2-read'],
    });
    const control = measured(report.cases, 'user-race/no-active-index');
    expect(control.status).toBe('pass');
    expect(control.permutations?.[0]).toMatchObject({ status: 'pass', outcomes: { HELD: 2 } });
  });
});
