/**
 * row-lock-count (LabReserve): the slot row FOR UPDATE, then a COUNT of the active holds; the
 * resource FOR SHARE against an administrator's disable. Its control counts without the lock and is
 * caught overselling; disable-vs-reserve holds in every order of its steps.
 */
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf, SCENARIOS_WITHOUT_CLUSTER } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

const STRATEGY = 'strategies/row-lock-count.ts';

describe('row-lock-count', () => {
  it(
    'passes every scenario (n/a only with a reason)',
    async () => {
      const { run, report } = await defaultRunOf(['row-lock-count']);

      expect(report.cases).toHaveLength(SCENARIOS_WITHOUT_CLUSTER.length);
      const notPassing = report.cases.filter((c) => c.status !== 'pass' && c.status !== 'n/a');
      expect(notPassing.map((c) => `${c.id}: ${c.boundary}`)).toEqual([]);
      for (const c of report.cases) {
        if (c.status === 'n/a') expect(c.reason.trim(), c.id).not.toBe('');
        else expect(c.invariants, c.id).toMatchObject({ oversold: 0, drift: 0, duplicateActive: 0 });
      }

      expect(measured(report.cases, 'contention/row-lock-count').outcomes).toEqual({
        HELD: 40,
        SOLD_OUT: 110,
      });
      expect(measured(report.cases, 'contention-30-2/row-lock-count').outcomes).toEqual({
        HELD: 2,
        SOLD_OUT: 28,
      });
      const disable = measured(report.cases, 'disable-vs-reserve/row-lock-count');
      // Listed order: the booking commits before the disable, the two bookings after it are refused.
      expect(disable.outcomes).toEqual({ HELD: 1, SOLD_OUT: 2 });
      expect(disable.observations).toEqual({ disabled: 1 });
      expect(disable.invariants).toMatchObject({ total: 5, active: 1, available: 4 });
      expect(disable.steps?.filter((s) => s.blocked).map((s) => s.step)).toEqual(['d-disable', 'w-ask']);
      // The disable waited for the booking in flight, so the booking committed before it returned.
      const inFlight = measured(report.cases, 'disable-in-flight/row-lock-count');
      expect(inFlight).toMatchObject({ status: 'pass', outcomes: { HELD: 1, SOLD_OUT: 1 }, fired: [] });
      expect(inFlight.steps?.filter((s) => s.blocked).map((s) => s.step)).toEqual(['d-disable']);

      expect(report.ok).toBe(true);
      expect(run.code).toBe(0);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );

  it('contention-30-2 gives HELD 2 + SOLD_OUT 28 in 20 runs in a row', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      STRATEGY,
      '--scenario',
      'contention-30-2',
      '--repeat',
      '20',
    ]);
    expect(report.cases).toHaveLength(20);
    for (const c of report.cases) {
      expect(c.status, c.id).toBe('pass');
      expect(c.outcomes, c.id).toEqual({ HELD: 2, SOLD_OUT: 28 });
      expect(c.invariants, c.id).toMatchObject({ active: 2, available: 0, oversold: 0 });
    }
    expect(run.code).toBe(0);
  }, 300_000);

  it('disable-vs-reserve and disable-in-flight pass in every order of their steps', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      STRATEGY,
      '--scenario',
      'disable-vs-reserve,disable-in-flight',
      '--permutations',
      'all',
    ]);
    // A booking let go on after the disable returned is an invalid order here: the disable waits for it.
    const inFlight = measured(report.cases, 'disable-in-flight/row-lock-count');
    expect(inFlight.status).toBe('pass');
    expect(inFlight.permutations?.filter((p) => p.status === 'invalid').map((p) => p.order)).toEqual([
      'b-take d-disable d-later b-commit',
    ]);
    const c = measured(report.cases, 'disable-vs-reserve/row-lock-count');
    expect(c.status).toBe('pass');
    // Sessions of 2, 3 and 1 steps: 6!/(2!·3!·1!) orders.
    const orders = c.permutations ?? [];
    expect(orders).toHaveLength(60);
    const valid = orders.filter((p) => p.status !== 'invalid');
    expect(valid.length).toBeGreaterThan(0);
    for (const p of valid) {
      expect(p.status, p.order).toBe('pass');
      const steps = p.order.split(' ');
      const at = (step: string) => steps.indexOf(step);
      // The disable committed before either booking was sent: nothing is booked.
      if (at('d-commit') < Math.min(at('b-take'), at('w-ask')))
        expect(p.outcomes, p.order).toEqual({ SOLD_OUT: 3 });
      // Both bookings were sent before the disable: both are served, only the one after the commit is refused.
      if (Math.max(at('b-take'), at('w-ask')) < at('d-disable'))
        expect(p.outcomes, p.order).toEqual({ HELD: 2, SOLD_OUT: 1 });
    }
    expect(run.code).toBe(0);
  }, 300_000);
});

describe('count-without-lock (control)', () => {
  it(
    'is caught by oversold in contention and contention-30-2, and sits out every other scenario',
    async () => {
      const { run, report } = await defaultRunOf(['count-without-lock']);
      const contention = measured(report.cases, 'contention/count-without-lock');
      expect(contention).toMatchObject({ expect: 'violate', status: 'pass', outcomes: { HELD: 150 } });
      expect(contention.fired).toContain('oversold');
      expect(contention.invariants).toMatchObject({ total: 40, active: 150, oversold: 110 });
      const seed = measured(report.cases, 'contention-30-2/count-without-lock');
      expect(seed).toMatchObject({ expect: 'violate', status: 'pass', outcomes: { HELD: 30 } });
      expect(seed.fired).toContain('oversold');
      expect(seed.invariants).toMatchObject({ total: 2, active: 30, oversold: 28 });
      const others = report.cases.filter((x) => !['contention', 'contention-30-2'].includes(x.scenario));
      expect(others.every((x) => x.status === 'n/a')).toBe(true);
      expect(report.ok).toBe(true);
      expect(run.code).toBe(0);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );
});

describe('disable-vs-reserve on a design without disable', () => {
  it('is not covered for hot-row', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      'hot-row',
      '--scenario',
      'disable-vs-reserve',
    ]);
    const c = report.cases[0];
    expect(c).toMatchObject({
      id: 'disable-vs-reserve/hot-row',
      status: 'n/a',
      coverage: { missing: ['no disable'] },
    });
    expect(c?.status === 'n/a' ? c.reason : '').toMatch(/not covered: disable-vs-reserve — no disable/);
    // Its only case is n/a: a run that judged nothing does not pass.
    expect(run.code).toBe(1);
  });
});
