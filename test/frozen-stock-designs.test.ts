/**
 * The frozen-stock chapter's designs: frozen-ledger (available/frozen/sold counters, a stock_frozen flag per
 * reservation, an append-only stock ledger) and bucketed (a sku's stock over BUCKETS rows, with a fallback)
 * pass every scenario; frozen-ledger's books reconcile and replay in each case; the three controls are caught
 * by the checks they name in every scenario they name.
 */
import { describe, expect, inject, it } from 'vitest';
import type { CheckName } from '../strategies/contract.ts';
import bucketedNoFallback from '../strategies/controls/bucketed-no-fallback.ts';
import releaseFrozenOnly from '../strategies/controls/release-frozen-only.ts';
import releaseTwice from '../strategies/controls/release-twice.ts';
import frozenLedger from '../strategies/frozen-ledger.ts';
import { useRunDatabase } from './db-fixture.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf, SCENARIOS_WITHOUT_CLUSTER } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const DESIGNS = ['frozen-ledger', 'bucketed'];

const CONTROLS: { id: string; caughtBy: Record<string, CheckName[]> }[] = [
  {
    id: 'release-frozen-only',
    caughtBy: {
      'lifecycle-matrix': ['reconciled', 'ledgerReplayDrift'],
      expiry: ['reconciled', 'ledgerReplayDrift'],
    },
  },
  {
    id: 'release-twice',
    caughtBy: { 'lifecycle-matrix': ['drift'], 'release-expire-race': ['drift'] },
  },
  {
    id: 'bucketed-no-fallback',
    caughtBy: {
      'confirm-vs-expire': ['outcomes'],
      'node-aborts': ['outcomes'],
      'node-restart-partial': ['outcomes'],
    },
  },
];

describe('frozen-ledger and bucketed', () => {
  it(
    'pass every scenario (n/a only with a reason); frozen-ledger reconciles and replays in each',
    async () => {
      const { run, report } = await defaultRunOf(DESIGNS);

      expect(report.cases).toHaveLength(DESIGNS.length * SCENARIOS_WITHOUT_CLUSTER.length);
      const notPassing = report.cases.filter((c) => c.status !== 'pass' && c.status !== 'n/a');
      expect(notPassing.map((c) => `${c.id}: ${c.boundary}`)).toEqual([]);
      for (const c of report.cases) {
        if (c.status === 'n/a') {
          expect(c.reason.trim(), c.id).not.toBe('');
          continue;
        }
        expect(c.invariants, c.id).toMatchObject({ oversold: 0, drift: 0, duplicateActive: 0 });
        if (c.strategy === 'frozen-ledger')
          expect(c.invariants, c.id).toMatchObject({ reconciled: true, ledgerReplayDrift: 0 });
      }

      for (const strategy of ['frozen-ledger', 'bucketed']) {
        expect(measured(report.cases, `contention/${strategy}`).outcomes).toEqual({
          HELD: 40,
          SOLD_OUT: 110,
        });
        // The fallback waits on a bucket whose holder may roll back instead of skipping it.
        const aborts = measured(report.cases, `contention-aborts/${strategy}`);
        expect(aborts.invariants.falseSoldOut, aborts.id).toBe(0);
      }
      expect(report.ok).toBe(true);
      expect(run.code).toBe(0);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );
});

describe('bucketed as a knob (--param bucketed.buckets=1,16)', () => {
  it('runs each bucket count as a design of its own, in the clients worker threads too', async () => {
    const { run, report } = await runJson(inject('serverUrl'), [
      '--strategy',
      'bucketed',
      '--param',
      'bucketed.buckets=1,16',
      '--scenario',
      'contention,node-aborts',
    ]);
    expect(report.cases.map((c) => [c.id, c.status])).toEqual([
      ['contention/bucketed[buckets=1]', 'pass'],
      ['contention/bucketed[buckets=16]', 'pass'],
      ['node-aborts/bucketed[buckets=1]', 'pass'],
      ['node-aborts/bucketed[buckets=16]', 'pass'],
    ]);
    for (const id of ['contention/bucketed[buckets=1]', 'contention/bucketed[buckets=16]']) {
      expect(measured(report.cases, id).outcomes, id).toEqual({ HELD: 40, SOLD_OUT: 110 });
    }
    expect(report.boundary.map((b) => b.strategy)).toEqual(['bucketed[buckets=1]', 'bucketed[buckets=16]']);
    expect([report.ok, run.code]).toEqual([true, 0]);
  });
});

describe("the frozen-stock chapter's external call inside the transaction, as a knob of a payment design", () => {
  it('runs each call length as a payment design of its own, each correct', async () => {
    const { run, report } = await runJson(inject('serverUrl'), [
      '--strategy',
      'payment-external-call-inside',
      '--param',
      'payment-external-call-inside.callMs=0,50',
      '--scenario',
      'payment-two-workers',
    ]);
    expect(report.payments.map((c) => [c.id, c.status, c.outcomes])).toEqual([
      ['payment-two-workers/payment-external-call-inside[callMs=0]', 'pass', { CREATED: 1, REUSED: 1 }],
      ['payment-two-workers/payment-external-call-inside[callMs=50]', 'pass', { CREATED: 1, REUSED: 1 }],
    ]);
    expect([report.ok, run.code]).toEqual([true, 0]);
  });
});

describe("the frozen-stock chapter's controls (release-frozen-only, release-twice, bucketed-no-fallback)", () => {
  it('name the cases this file expects', () => {
    const loaded = [releaseFrozenOnly, releaseTwice, bucketedNoFallback];
    expect(loaded.map((s) => [s.id, s.expect, s.caughtBy])).toEqual(
      CONTROLS.map((c) => [c.id, 'violate', c.caughtBy]),
    );
  });

  it(
    'are caught by every check they name, in every scenario they name, and sit out the others',
    async () => {
      const { run, report } = await defaultRunOf(CONTROLS.map((c) => c.id));

      for (const control of CONTROLS) {
        const cases = report.cases.filter((c) => c.strategy === control.id);
        const ran = cases.filter((c) => c.status !== 'n/a').map((c) => c.scenario);
        expect(ran.sort(), control.id).toEqual(Object.keys(control.caughtBy).sort());
        for (const [scenario, checks] of Object.entries(control.caughtBy)) {
          const c = measured(report.cases, `${scenario}/${control.id}`);
          expect(c.status, c.id).toBe('pass');
          for (const check of checks) expect(c.fired, c.id).toContain(check);
          expect(c.invariants.oversold, c.id).toBe(0);
        }
      }

      for (const scenario of ['lifecycle-matrix', 'expiry']) {
        const lost = measured(report.cases, `${scenario}/release-frozen-only`).invariants;
        expect(lost.reconciled, scenario).toBe(false);
        expect(lost.ledgerReplayDrift, scenario).toBeGreaterThan(0);
      }
      for (const scenario of ['lifecycle-matrix', 'release-expire-race']) {
        const twice = measured(report.cases, `${scenario}/release-twice`).invariants;
        // Both moves were booked as pairs: the books cannot see a release that should not have happened.
        expect(twice, scenario).toMatchObject({ reconciled: true, ledgerReplayDrift: 0 });
        expect(twice.drift, scenario).toBeLessThan(0);
      }
      for (const scenario of Object.keys(bucketedNoFallback.caughtBy ?? {})) {
        const c = measured(report.cases, `${scenario}/bucketed-no-fallback`);
        expect(c.outcomes.SOLD_OUT ?? 0, c.id).toBeGreaterThan(0);
        expect(c.invariants.falseSoldOut, c.id).toBeGreaterThan(0);
      }

      expect(report.ok).toBe(true);
      expect(run.code).toBe(0);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );
});

describe('the stock ledger', () => {
  const { db, admin } = useRunDatabase();

  it('is append-only: an update or a delete of an entry is refused', async () => {
    const schema = await db().createCaseSchema('ledger append-only');
    await admin().query(`SET search_path TO ${schema}`);
    try {
      await frozenLedger.setup(admin(), [{ sku: 'sku-lab-01', total: 5 }]);
      const { rows } = await admin().query<{ action: string; qty: number }>(
        'SELECT action, qty FROM stock_ledger',
      );
      expect(rows).toEqual([{ action: 'STOCK_IN', qty: 5 }]);
      await expect(admin().query('UPDATE stock_ledger SET qty = 6')).rejects.toThrow(/append-only/);
      await expect(admin().query('DELETE FROM stock_ledger')).rejects.toThrow(/append-only/);
    } finally {
      await admin().query('RESET search_path');
      await db().dropCaseSchema(schema);
    }
  });
});
