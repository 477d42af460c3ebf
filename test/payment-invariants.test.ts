/**
 * Every payment invariant proves it can fail: a healthy reading (the isolation-matrix chapter's two workers,
 * one payment, one outbox row, the loser REUSED) fires nothing, and each fixture below breaks one check,
 * which fires; the exact list says what else a break of that shape necessarily fires. The designs' cases
 * (payment-cases.test.ts) show the controls caught by these checks on real rows. Last, the answers these
 * checks take, as a payment spec's are read off the interleaving engine's records.
 */
import { describe, expect, it } from 'vitest';
import type { StepRecord } from '../harness/interleaving/permutation.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import { paymentAnswersOf } from '../harness/scenario/payment/payment-spec-drive.ts';
import type { KeyStatus } from '../harness/verdict/final-read.ts';
import { type OrdersRead, orderInvariantProblems } from '../harness/verdict/order-invariants.ts';
import type { KeyReading, PaymentFinalRead } from '../harness/verdict/payment-final-read.ts';
import { type PaymentAnswer, paymentInvariantProblems } from '../harness/verdict/payment-invariants.ts';
import type { PaymentAudit, PaymentRequest } from '../strategies/payment/contract.ts';
import { requestFingerprint } from '../strategies/payment/fingerprint.ts';

const KEY = 'idem-order-1001';
const fingerprint = requestFingerprint({ amount: 3000, currency: 'CNY', merchant: 'demo' });
const request = (paymentId: string, amount = 3000): PaymentRequest => ({
  idempotencyKey: KEY,
  fingerprint: requestFingerprint({ amount, currency: 'CNY', merchant: 'demo' }),
  order: 'order-1001',
  amount,
  currency: 'CNY',
  merchant: 'demo',
  paymentId,
});
const response = (paymentId: string) => ({ paymentId, order: 'order-1001', amount: 3000, currency: 'CNY' });
const payment = (paymentId: string) => ({ ...response(paymentId), fingerprint });

const HEALTHY_ANSWERS: PaymentAnswer[] = [
  { request: request('pay-a'), outcome: 'CREATED', response: response('pay-a') },
  { request: request('pay-b'), outcome: 'REUSED', response: response('pay-a') },
];
const healthyKey: KeyReading = { payments: [payment('pay-a')], outbox: [{ paymentId: 'pay-a' }] };
const AUDIT: PaymentAudit = {
  payments: 1,
  outbox: 1,
  keysWithManyPayments: 0,
  paymentsWithoutOutbox: 0,
  outboxWithoutPayment: 0,
};

const fired = (answers: readonly PaymentAnswer[], key: KeyReading, audit: PaymentAudit = AUDIT) => {
  const read: PaymentFinalRead = new Map([[KEY, key]]);
  return [...new Set(paymentInvariantProblems(answers, read, audit).map((p) => p.check))];
};

describe('payment invariants', () => {
  it("fire nothing on the payment drill's figures: one payment, one outbox row, the loser REUSED", () => {
    expect(fired(HEALTHY_ANSWERS, healthyKey)).toEqual([]);
  });

  it('onePaymentPerKey: two payments under one key (the audit agreeing)', () => {
    const key = {
      payments: [payment('pay-a'), payment('pay-b')],
      outbox: [{ paymentId: 'pay-a' }, { paymentId: 'pay-b' }],
    };
    const answers = [
      HEALTHY_ANSWERS[0] as PaymentAnswer,
      { ...HEALTHY_ANSWERS[0], request: request('pay-b'), response: response('pay-b') } as PaymentAnswer,
    ];
    // Two CREATED answers with two ids are also not one key's one response.
    expect(fired(answers, key, { ...AUDIT, payments: 2, outbox: 2, keysWithManyPayments: 1 })).toEqual([
      'onePaymentPerKey',
      'reusedMatchesWinner',
    ]);
  });

  it('outboxMatchesPayment: a payment no outbox row announces', () => {
    expect(
      fired(
        HEALTHY_ANSWERS,
        { ...healthyKey, outbox: [] },
        { ...AUDIT, outbox: 0, paymentsWithoutOutbox: 1 },
      ),
    ).toEqual(['outboxMatchesPayment']);
  });

  it('outboxMatchesPayment: an outbox row for a payment that is not there', () => {
    const key = { ...healthyKey, outbox: [{ paymentId: 'pay-a' }, { paymentId: 'pay-b' }] };
    expect(fired(HEALTHY_ANSWERS, key, { ...AUDIT, outbox: 2, outboxWithoutPayment: 1 })).toEqual([
      'outboxMatchesPayment',
    ]);
  });

  it("reusedMatchesWinner: a REUSED answer that is not the winner's response", () => {
    const answers = [
      HEALTHY_ANSWERS[0] as PaymentAnswer,
      { ...(HEALTHY_ANSWERS[1] as PaymentAnswer), response: response('pay-b') },
    ];
    expect(fired(answers, healthyKey)).toEqual(['reusedMatchesWinner']);
  });

  it('reusedOtherPayload: amount 9999 answered REUSED with the first response', () => {
    const answers = [
      HEALTHY_ANSWERS[0] as PaymentAnswer,
      { request: request('pay-b', 9999), outcome: 'REUSED', response: response('pay-a') },
    ];
    expect(fired(answers, healthyKey)).toEqual(['reusedOtherPayload']);
  });

  it('mismatchWrote: a MISMATCH whose payment id is in the outbox', () => {
    const answers = [
      HEALTHY_ANSWERS[0] as PaymentAnswer,
      { request: request('pay-b', 9999), outcome: 'MISMATCH' },
    ];
    expect(fired(answers, healthyKey)).toEqual([]);
    const key = { ...healthyKey, outbox: [{ paymentId: 'pay-a' }, { paymentId: 'pay-b' }] };
    // The orphan outbox row also fails the outbox check: mismatchWrote names the request that wrote it.
    expect(fired(answers, key, { ...AUDIT, outbox: 2, outboxWithoutPayment: 1 })).toEqual([
      'outboxMatchesPayment',
      'mismatchWrote',
    ]);
  });

  it('mismatchWrote: a MISMATCH for the very payload that was recorded', () => {
    const answers = [HEALTHY_ANSWERS[0] as PaymentAnswer, { request: request('pay-b'), outcome: 'MISMATCH' }];
    expect(fired(answers, healthyKey)).toEqual(['mismatchWrote']);
  });

  it('unacknowledgedPayment: a payment of an attempt that rolled back', () => {
    const answers = [{ request: request('pay-a'), outcome: 'ROLLED_BACK' }];
    expect(fired(answers, healthyKey)).toEqual(['unacknowledgedPayment']);
  });

  it('paymentAuditMismatch: a payment under a key nobody sent, seen only by the audit', () => {
    expect(fired(HEALTHY_ANSWERS, healthyKey, { ...AUDIT, payments: 2, paymentsWithoutOutbox: 1 })).toEqual([
      'paymentAuditMismatch',
    ]);
  });
});

describe('order flow invariants', () => {
  const stock = { sku: 'sku-lab-01', total: 10 };
  const orders = (statuses: [string, KeyStatus][], remaining: number): OrdersRead => ({
    stock,
    reservations: { statuses: new Map(statuses), remaining: new Map([[stock.sku, remaining]]) },
  });
  const paid: PaymentFinalRead = new Map([
    [KEY, healthyKey],
    ['order-2', { payments: [], outbox: [] }],
  ]);
  const firedOn = (read: OrdersRead) => orderInvariantProblems(read, paid).map((p) => p.check);

  it('fire nothing when the paid order is CONFIRMED and each held unit is gone from the stock', () => {
    expect(
      firedOn(
        orders(
          [
            [KEY, 'CONFIRMED'],
            ['order-2', 'HELD'],
          ],
          8,
        ),
      ),
    ).toEqual([]);
  });

  it('soldMatchesOrders: a confirmed unit back on the stock row', () => {
    expect(
      firedOn(
        orders(
          [
            [KEY, 'CONFIRMED'],
            ['order-2', 'HELD'],
          ],
          9,
        ),
      ),
    ).toEqual(['soldMatchesOrders']);
  });

  it('paidUnconfirmed: a payment under an order still HELD (its stock agreeing)', () => {
    expect(
      firedOn(
        orders(
          [
            [KEY, 'HELD'],
            ['order-2', 'EXPIRED'],
          ],
          9,
        ),
      ),
    ).toEqual(['paidUnconfirmed']);
  });
});

describe("a payment spec's answers, read off the engine's records", () => {
  const spec = parseSpec(
    [
      'session w1',
      'step "w1-pay" { PAY idem-order-1001 pay-a UNTIL before-commit }',
      'step "w1-kill" { RESUME KILL }',
      'session w2',
      'step "w2-pay" { PAY idem-order-1001 pay-b UNTIL between-transactions }',
      'step "w2-undo" { RESUME ROLLBACK }',
      'session w3',
      'step "w3-pay" { PAY idem-order-1001 pay-c UNTIL between-transactions }',
      'session w4',
      'step "w4-pay" { PAY idem-order-1001 pay-d }',
      'permutation "w1-pay" "w2-pay" "w3-pay" "w4-pay" "w2-undo" "w1-kill"',
    ].join('\n'),
    'x.spec',
  );
  const record = (step: string, session: string, result: StepRecord['result']): StepRecord => ({
    step,
    session,
    blocked: false,
    retrying: false,
    sentAt: 0,
    result,
  });

  it('answers a held pay on the RESUME that ended it, a killed or abandoned one by where it was held', () => {
    const [permutation] = spec.permutations;
    if (!permutation) throw new Error('no permutation');
    const answers = paymentAnswersOf(permutation, [
      record('w1-pay', 'w1', { status: 'ok', paused: 'before-commit' }),
      record('w2-pay', 'w2', { status: 'ok', paused: 'between-transactions' }),
      record('w3-pay', 'w3', { status: 'ok', paused: 'between-transactions' }),
      record('w4-pay', 'w4', {
        status: 'ok',
        payment: { outcome: 'CREATED', response: response('pay-d') },
      }),
      record('w2-undo', 'w2', { status: 'ok', rolledBack: true }),
      record('w1-kill', 'w1', { status: 'error', sqlstate: '57P01', error: 'killed', killed: true }),
    ]);
    expect(answers.map((a) => [a.request.paymentId, a.outcome, a.sqlstate])).toEqual([
      ['pay-d', 'CREATED', undefined],
      ['pay-b', 'ROLLED_BACK', undefined],
      // Killed before its commit: nothing of it may persist.
      ['pay-a', 'ROLLED_BACK', '57P01'],
      // Still held after its first commit when the permutation ended: its fate is unknown.
      ['pay-c', 'INDETERMINATE', undefined],
    ]);
  });
});
