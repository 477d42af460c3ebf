/**
 * Every payment design through every payment scenario on real PostgreSQL: each safe design passes each
 * scenario with the payment drill's figures, each control is caught in its scenarios by the check it names
 * (and sits the others out), and the same control judged as if it held fails for that check.
 */
import { describe, expect, inject, it } from 'vitest';
import { PAYMENT_SCENARIOS } from '../harness/contracts/payment/case/payment-scenarios.ts';
import { runPaymentCase } from '../harness/contracts/payment/case/run-payment-case.ts';
import {
  loadAllPaymentDesigns,
  loadPaymentDesign,
} from '../harness/contracts/payment/designs/payment-registry.ts';
import type { SessionContext } from '../strategies/contract.ts';
import type { PaymentRequest, PaymentResult } from '../strategies/payment/contract.ts';
import { useRunDatabase } from './db-fixture.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRun } from './default-run.ts';
import { caseSchemasIn, dropKeptDatabases, keptDatabasesOf } from './kept-databases.ts';
import { runJson } from './run-cli.ts';

const { db } = useRunDatabase();
const SETTINGS = { keepFailed: false, timeoutMs: 20_000, permutations: 'listed' as const };
const scenario = (id: string) => {
  const found = PAYMENT_SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(`no payment scenario ${id}`);
  return found;
};

/** The payment drill's figures (docs/sources.md): two workers, one key, one payment. */
const DRILL_FIGURES = { requests: 2, inserted: 1, reused: 1, distinctResponses: 1, payment: 1, outbox: 1 };

describe('payment cases', () => {
  it('finds the payment scenarios', () => {
    expect(PAYMENT_SCENARIOS.map((s) => s.id)).toEqual([
      'payment-commit-ack-lost',
      'payment-db-crash',
      'payment-duplicates',
      'payment-failover-async',
      'payment-failover-sync',
      'payment-kill-9',
      'payment-mismatch',
      'payment-order-flow',
      'payment-retry-in-flight',
      'payment-two-workers',
      'payment-worker-dies',
    ]);
  });

  it('runs each payment case --repeat times, each judged on tables of its own', async () => {
    const { run, report } = await runJson(inject('serverUrl'), [
      '--strategy',
      'payment-on-conflict',
      '--scenario',
      'payment-mismatch',
      '--repeat',
      '3',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(report.payments.map((c) => [c.id, c.status, c.outcomes])).toEqual(
      [1, 2, 3].map((n) => [
        `payment-mismatch/payment-on-conflict#${n}`,
        'pass',
        { CREATED: 1, MISMATCH: 1 },
      ]),
    );
  });

  // The shared test server is given by URL: a scenario that restarts it is n/a here (db-faults.test.ts);
  // a cluster scenario brings up a cluster of its own (payment-failover.test.ts).
  const UP = PAYMENT_SCENARIOS.filter((s) => !('run' in s && (s.crashesDatabase || s.cluster)));

  // payment-external-call-inside at its default 800 ms: one call per CREATED answer. The cases are the
  // shared default run's (test/default-run.ts), which drives every payment design through each of them.
  for (const id of [
    'payment-on-conflict',
    'payment-advisory-lock',
    'payment-serializable',
    'payment-external-call-inside',
  ]) {
    it(`${id} passes every payment scenario, with the isolation-matrix chapter's figures`, {
      timeout: DEFAULT_RUN_TIMEOUT_MS,
    }, async () => {
      const ref = await loadPaymentDesign(id);
      const { report } = await defaultRun();
      const results = UP.map((s) => report.payments.find((c) => c.id === `${s.id}/${id}`));
      expect(
        results.map((r) => `${r?.scenario}:${r?.status}`),
        JSON.stringify(results.map((r) => r?.problems)),
      ).toEqual(UP.map((s) => `${s.id}:pass`));
      // Every case's pays and reads were checked against the payment model, none left unchecked.
      expect(results.map((r) => r?.history?.status)).toEqual(UP.map(() => 'linearizable'));
      const drill = results.find((r) => r?.scenario === 'payment-two-workers');
      expect(drill?.observations?.figures).toEqual(DRILL_FIGURES);
      expect(drill?.counts).toEqual({ payments: 1, outbox: 1 });
      const mismatch = results.find((r) => r?.scenario === 'payment-mismatch');
      expect(mismatch?.outcomes).toEqual({ CREATED: 1, MISMATCH: 1 });
      expect(mismatch?.observations?.countsAfter).toEqual({ payment: 1, outbox: 1 });
      const killed = results.find((r) => r?.scenario === 'payment-kill-9');
      expect(killed?.outcomes).toEqual({ CREATED: 1, ROLLED_BACK: 1 });
      const flow = results.find((r) => r?.scenario === 'payment-order-flow');
      const payPoints = ref.design.pausePoints.pay.map((p) => `pay:${p}`);
      expect(flow?.observations?.crashedAt).toBe(
        ['reserve:after-read', 'reserve:before-commit', ...payPoints].join(', '),
      );
      // One order per crash point, each paid once: the killed pays rolled back, the retries created.
      expect(flow?.counts).toEqual({ payments: 2 + payPoints.length, outbox: 2 + payPoints.length });
    });
  }

  it('the unique key makes the second worker wait behind the held first one; SSI does not', async () => {
    const seen: Record<string, unknown> = {};
    for (const id of ['payment-on-conflict', 'payment-advisory-lock', 'payment-serializable']) {
      const r = await runPaymentCase(
        db(),
        await loadPaymentDesign(id),
        scenario('payment-two-workers'),
        SETTINGS,
      );
      seen[id] = r.observations?.secondWhileHeld;
    }
    expect(seen['payment-on-conflict']).toBe('blocked');
    expect(seen['payment-advisory-lock']).toBe('blocked');
    expect(seen['payment-serializable']).not.toBe('blocked');
  });

  it("runs the payment drill's workers as a spec on the engine: w1 held, w2 seen blocked, w1's commit answers", async () => {
    const r = await runPaymentCase(
      db(),
      await loadPaymentDesign('payment-on-conflict'),
      scenario('payment-two-workers'),
      SETTINGS,
    );
    expect(r.steps?.map((s) => [s.step, s.blocked, s.result.status])).toEqual([
      ['w1-pay', false, 'ok'],
      ['w2-pay', true, 'ok'],
      ['w1-commit', false, 'ok'],
    ]);
    expect(r.steps?.[0]?.result).toMatchObject({ paused: 'before-commit' });
    // Which worker's payment id is recorded is the winner's, never asserted; both answers carry it.
    const answers = (r.steps ?? [])
      .slice(1)
      .map((s) => (s.result.status === 'ok' ? (s.result.answer as PaymentResult | undefined) : undefined));
    expect(answers.map((a) => a?.outcome).sort()).toEqual(['CREATED', 'REUSED']);
    expect(new Set(answers.map((a) => a?.response?.paymentId)).size).toBe(1);
  });

  it('--permutations all runs every order of a payment spec, each judged; the order-dependent ones too', async () => {
    const all = { ...SETTINGS, permutations: 'all' as const };
    const ref = await loadPaymentDesign('payment-on-conflict');
    for (const id of ['payment-two-workers', 'payment-worker-dies']) {
      const r = await runPaymentCase(db(), ref, scenario(id), all);
      expect(r.status, JSON.stringify(r.problems)).toBe('pass');
      expect(r.permutations?.map((p) => p.status)).toEqual(['pass', 'pass', 'pass']);
      expect(r.boundary).toMatch(/\(3 permutations, 0 failed, 0 invalid\)$/);
    }
    const control = await loadPaymentDesign('payment-check-then-insert');
    const caught = await runPaymentCase(db(), control, scenario('payment-two-workers'), all);
    expect(caught.status, JSON.stringify(caught.problems)).toBe('pass');
    expect(caught.fired).toContain('onePaymentPerKey');
  });

  it('a PAY … UNTIL whose pay never stops there makes the case fail as not exercised', async () => {
    const ref = await loadPaymentDesign('payment-on-conflict');
    const { design } = ref;
    // Declares before-commit and never pauses: the spec's hold did not happen.
    const neverHolds = {
      ...design,
      pay: (ctx: SessionContext, request: PaymentRequest) =>
        design.pay({ ...ctx, pause: async () => undefined }, request),
    };
    const r = await runPaymentCase(
      db(),
      { ...ref, design: neverHolds },
      scenario('payment-two-workers'),
      SETTINGS,
    );
    expect(r.status).toBe('fail');
    expect(r.fired).toEqual(['exercised']);
    expect(r.problems).toEqual(['not exercised: w1-pay never reached before-commit']);
  });

  it('run --spec FILE of PAY steps runs it against the payment designs named, its report valid', async () => {
    const file = 'test/fixtures/specs/two-workers.spec';
    const { run, report } = await runJson(inject('serverUrl'), [
      '--spec',
      file,
      '--strategy',
      'payment-on-conflict,payment-check-then-insert,payment-split-outbox',
    ]);
    // Every design is judged as if it held: the control's two payments fail the run; one without the
    // spec's pause point sits it out.
    expect(run.code, run.stderr).toBe(1);
    expect(report.cases).toEqual([]);
    expect(report.payments.map((c) => `${c.id}:${c.expect}:${c.status}`)).toEqual([
      'two-workers/payment-on-conflict:hold:pass',
      'two-workers/payment-check-then-insert:hold:fail',
      'two-workers/payment-split-outbox:hold:n/a',
    ]);
    expect(report.payments[1]?.fired).toContain('onePaymentPerKey');
    expect(report.payments[2]?.reason).toMatch(/pay declares no pause point before-commit/);
    const [onConflict] = report.payments;
    expect(onConflict?.outcomes).toEqual({ CREATED: 1, REUSED: 1 });
    expect(onConflict?.steps?.filter((s) => s.blocked).map((s) => s.step)).toEqual(['w2-pay']);
  });

  it('--permutations all of a PAY spec keeps the tables of the first order that fails where the listed one passed', async () => {
    const serverUrl = inject('serverUrl');
    const { run, report } = await runJson(serverUrl, [
      '--spec',
      'test/fixtures/specs/two-workers-in-turn.spec',
      '--strategy',
      'payment-check-then-insert',
      '--permutations',
      'all',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const [c] = report.payments;
    expect(c?.status).toBe('fail');
    const [listed, ...others] = c?.permutations ?? [];
    expect(listed).toMatchObject({ order: 'w1-pay w1-commit w2-pay', status: 'pass' });
    expect(listed?.keptSchema).toBeUndefined();
    const failed = others.filter((p) => p.status === 'fail' || p.status === 'broken');
    expect(failed.map((p) => p.order)).toContain('w1-pay w2-pay w1-commit');
    expect(c?.keptSchema).toMatch(/^c\d+_/);
    expect(others.filter((p) => p.keptSchema).map((p) => p.order)).toEqual([failed[0]?.order]);
    expect(failed[0]?.keptSchema).toBe(c?.keptSchema);
    const kept = keptDatabasesOf(run.stderr);
    try {
      expect(await caseSchemasIn(serverUrl, kept)).toEqual([c?.keptSchema]);
    } finally {
      await dropKeptDatabases(serverUrl, kept);
    }
  });

  /** Control, scenario, the check that catches it, and where given the exact answers of the caught case. */
  const CONTROLS: [string, string, string, Record<string, number>?][] = [
    ['payment-check-then-insert', 'payment-two-workers', 'onePaymentPerKey'],
    ['payment-check-then-insert', 'payment-duplicates', 'onePaymentPerKey'],
    ['payment-no-fingerprint', 'payment-mismatch', 'reusedOtherPayload'],
    ['payment-split-outbox', 'payment-worker-dies', 'outboxMatchesPayment'],
    // Killed -9 after its payment committed: the kill is INDETERMINATE, the retry finds it, REUSED.
    ['payment-split-outbox', 'payment-kill-9', 'outboxMatchesPayment', { REUSED: 1, INDETERMINATE: 1 }],
    ['payment-split-outbox', 'payment-order-flow', 'outboxMatchesPayment'],
    // Proves payment-commit-ack-lost can fail: a retry of a committed key that pays again.
    ['payment-attempt-id-unique', 'payment-commit-ack-lost', 'onePaymentPerKey'],
    ['payment-attempt-id-unique', 'payment-duplicates', 'onePaymentPerKey'],
    // Only the order of its answers is wrong: the history check alone sees it.
    ['payment-pending-cache', 'payment-retry-in-flight', 'linearizable'],
  ];
  for (const [control, scenarioId, check, outcomes] of CONTROLS) {
    it(`${control} is caught in ${scenarioId} by ${check}; judged as holding, it fails for it`, async () => {
      const ref = await loadPaymentDesign(control);
      const caught = await runPaymentCase(db(), ref, scenario(scenarioId), SETTINGS);
      expect(caught.status, JSON.stringify(caught.problems)).toBe('pass');
      expect(caught.fired).toContain(check);
      if (outcomes) expect(caught.outcomes).toEqual(outcomes);
      const claimed = { ...ref, design: { ...ref.design, expect: 'hold' as const } };
      const failed = await runPaymentCase(db(), claimed, scenario(scenarioId), SETTINGS);
      expect(failed.status).toBe('fail');
      expect(failed.problems?.some((p) => p.startsWith(`${check} `))).toBe(true);
    });
  }

  it('payment-pending-cache passes every other check: only the order of its answers is wrong', async () => {
    const ref = await loadPaymentDesign('payment-pending-cache');
    const claimed = { ...ref, design: { ...ref.design, expect: 'hold' as const } };
    const r = await runPaymentCase(db(), claimed, scenario('payment-retry-in-flight'), SETTINGS);
    // The counts, responses and outcomes of a safe design: one payment, one outbox row, one response.
    expect(r).toMatchObject({
      outcomes: { ROLLED_BACK: 1, CREATED: 1, REUSED: 1 },
      counts: { payments: 1, outbox: 1 },
    });
    expect(r.fired).toEqual(['linearizable']);
    expect(r.observations?.retryWhileHeld).toBe('done');
    // The witness: the retry told REUSED, and the last retry that created the payment after it.
    expect(r.history?.witness?.map((w) => w.answer)).toEqual([
      'REUSED pay-in-flight',
      'CREATED pay-in-flight',
    ]);
  });
  it('payment-kill-9 holds each design to the answers its kill point fixes: outcomes fires on others', async () => {
    const killed = scenario('payment-kill-9');
    const onConflict = await loadPaymentDesign('payment-on-conflict');
    const held = await runPaymentCase(db(), onConflict, killed, SETTINGS);
    expect([held.status, held.outcomes]).toEqual(['pass', { ROLLED_BACK: 1, CREATED: 1 }]);
    // Expected as if killed between two commits: on-conflict, killed before its one commit, answers otherwise.
    const misjudged = { ...killed, expect: { ...killed.expect, outcomes: { INDETERMINATE: 1, REUSED: 1 } } };
    const r = await runPaymentCase(db(), onConflict, misjudged, SETTINGS);
    expect([r.status, r.fired]).toEqual(['fail', ['outcomes']]);
  });

  // The order flow's own checks, each broken alone by a reservation fixture paired with payment-on-conflict.
  const ORDER_BREAKERS: [string, string][] = [
    ['confirm-gives-unit-back', 'soldMatchesOrders'],
    ['confirm-answers-true', 'paidUnconfirmed'],
  ];
  for (const [fixture, check] of ORDER_BREAKERS) {
    it(`payment-order-flow beside ${fixture} fails for ${check} alone`, async () => {
      const flow = scenario('payment-order-flow');
      if (!('run' in flow)) throw new Error('payment-order-flow is a script');
      const stock = flow.orderFlow?.stock ?? { sku: '', total: 0 };
      const paired = { ...flow, orderFlow: { strategy: `test/fixtures/checks/${fixture}.ts`, stock } };
      const r = await runPaymentCase(db(), await loadPaymentDesign('payment-on-conflict'), paired, SETTINGS);
      expect(r.status).toBe('fail');
      expect(r.fired).toEqual([check]);
      expect(r.problems?.every((p) => p.startsWith(`${check} `))).toBe(true);
    });
  }

  it('a control sits out the scenarios that do not catch it; n/a says where it is caught', async () => {
    const results = [];
    for (const { design } of await loadAllPaymentDesigns()) {
      if (design.expect !== 'violate') continue;
      for (const s of PAYMENT_SCENARIOS) {
        if (design.caughtBy?.[s.id]) continue;
        results.push(await runPaymentCase(db(), { design, moduleUrl: '' }, s, SETTINGS));
      }
    }
    expect(
      results.every((r) => r.status === 'n/a' && r.reason?.startsWith('negative control: caught in')),
    ).toBe(true);
  });
});
