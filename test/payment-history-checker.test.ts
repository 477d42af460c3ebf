/**
 * The payment contract's history check against small histories whose verdict is known by hand: each
 * transition of the per-key register, real-time order, concurrency, unknown and aborted endings, a
 * response nobody heard told by a later answer, independent keys, and the witness a violation is shown
 * with; histories linearizable by construction, for false alarms; and a case's history as the harness
 * builds it from its records (a killed pay left out, a crashed one of unknown ending).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPaymentHistory } from '../harness/contracts/payment/history/check-payment-history.ts';
import type {
  PaymentCall,
  PaymentHistoryAnswer,
  PaymentHistoryOperation,
} from '../harness/contracts/payment/history/payment-history.ts';
import { PAYMENT_RULES } from '../harness/contracts/payment/history/payment-model.ts';
import { syntheticPaymentHistory } from '../harness/contracts/payment/history/synthetic-payment-history.ts';
import { paymentRequest } from '../harness/contracts/payment/spec/order-payment-payload.ts';
import {
  judgePaymentHistory,
  type PaymentRead,
} from '../harness/contracts/payment/verdict/payment-history-check.ts';
import type { PaymentAnswer } from '../harness/contracts/payment/verdict/payment-invariants.ts';
import type { Ending } from '../harness/history/history.ts';

type Row = [
  call: PaymentCall,
  invokedAt: number,
  completedAt: number | null,
  ending: PaymentHistoryAnswer | 'aborted' | 'unknown',
];

function history(rows: Row[]): PaymentHistoryOperation[] {
  return rows.map(([call, invokedAt, completedAt, answer], id) => {
    const ending: Ending<PaymentHistoryAnswer> =
      answer === 'aborted'
        ? { kind: 'aborted' }
        : answer === 'unknown'
          ? { kind: 'unknown', why: 'cut' }
          : { kind: 'ok', answer };
    return {
      id,
      call,
      session: `w${id}`,
      invokedAt,
      completedAt,
      db: { from: invokedAt, to: completedAt },
      ending,
    };
  });
}

const KEY = 'idem-order-1001';
const pay = (paymentId: string, amount = 3000, key = KEY): PaymentCall => ({
  op: 'pay',
  request: paymentRequest(key, paymentId, amount),
});
const read = (key = KEY): PaymentCall => ({ op: 'read', idempotencyKey: key });
const response = (paymentId: string, amount = 3000) => ({
  paymentId,
  order: 'order-1001',
  amount,
  currency: 'CNY',
});
const CREATED = (id: string, amount = 3000): PaymentHistoryAnswer => ({
  outcome: 'CREATED',
  response: response(id, amount),
});
const REUSED = (id: string): PaymentHistoryAnswer => ({ outcome: 'REUSED', response: response(id) });
const MISMATCH: PaymentHistoryAnswer = { outcome: 'MISMATCH' };
const paid = (id: string): PaymentHistoryAnswer => ({
  payments: [{ fingerprint: paymentRequest(KEY, id).fingerprint, response: response(id) }],
});
const status = (rows: Row[]) => checkPaymentHistory(history(rows)).status;

describe('the payment history checker', () => {
  it('accepts the payment drill in order: CREATED, REUSED with its response, MISMATCH for another payload, the read', () => {
    expect(
      status([
        [pay('p1'), 0, 1, CREATED('p1')],
        [pay('p2'), 2, 3, REUSED('p1')],
        [pay('p3', 9999), 4, 5, MISMATCH],
        [read(), 6, 7, paid('p1')],
      ]),
    ).toBe('linearizable');
  });

  it('lets concurrent workers linearize in either order: the REUSED may come back before the CREATED', () => {
    expect(
      status([
        [pay('p1'), 0, 10, CREATED('p1')],
        [pay('p2'), 1, 5, REUSED('p1')],
        [read(), 11, 12, paid('p1')],
      ]),
    ).toBe('linearizable');
  });

  it('flags a REUSED answered before the pay that created its payment was sent, with the two as witness', () => {
    const verdict = checkPaymentHistory(
      history([
        [pay('p1'), 0, null, 'aborted'],
        [pay('p1'), 1, 2, REUSED('p1')],
        [pay('p1'), 3, 4, CREATED('p1')],
        [read(), 5, 6, paid('p1')],
      ]),
    );
    expect(verdict.status).toBe('violation');
    if (verdict.status !== 'violation') return;
    expect(verdict.witness.map((w) => `${w.call} → ${w.answer}`)).toEqual([
      `pay ${KEY} p1 3000 → REUSED p1`,
      `pay ${KEY} p1 3000 → CREATED p1`,
    ]);
    // Neither answer alone is to blame: set either aside and the other still needs the opposite order.
    expect(verdict.summary).toBe('no order of these 2 operations gives every recorded answer');
  });

  it('names what the model answers where one answer alone is to blame', () => {
    const verdict = checkPaymentHistory(
      history([
        [pay('p1'), 0, 1, CREATED('p1')],
        [pay('p2'), 2, 3, MISMATCH],
      ]),
    );
    expect(verdict.status === 'violation' && verdict.summary).toBe(
      `pay ${KEY} p2 3000 answered MISMATCH at 2 ms; no order of these 2 operations explains it (the model answers REUSED p1 there by the contract's rule pay.reused: ${PAYMENT_RULES['pay.reused']})`,
    );
  });

  it('flags CREATED twice in a row, MISMATCH to the same payload, and REUSED of another response', () => {
    expect(
      status([
        [pay('p1'), 0, 1, CREATED('p1')],
        [pay('p2'), 2, 3, CREATED('p1')],
      ]),
    ).toBe('violation');
    expect(
      status([
        [pay('p1'), 0, 1, CREATED('p1')],
        [pay('p2'), 2, 3, MISMATCH],
      ]),
    ).toBe('violation');
    expect(
      status([
        [pay('p1'), 0, 1, CREATED('p1')],
        [pay('p2'), 2, 3, REUSED('p2')],
      ]),
    ).toBe('violation');
    expect(
      status([
        [pay('p1'), 0, 1, CREATED('p1')],
        [read(), 2, 3, { payments: [] }],
      ]),
    ).toBe('violation');
  });

  it("flags a CREATED whose response is not the request's payment, whatever payment id the design gave it", () => {
    expect(status([[pay('p1'), 0, 1, CREATED('made-by-the-design')]])).toBe('linearizable');
    expect(status([[pay('p1'), 0, 1, CREATED('p1', 9999)]])).toBe('violation');
  });

  it('places a pay of unknown ending anywhere after its invocation, or nowhere; an aborted one nowhere', () => {
    // The crashed worker never committed: the retry creates.
    expect(
      status([
        [pay('p1'), 0, null, 'unknown'],
        [pay('p1'), 5, 6, CREATED('p1')],
        [read(), 7, 8, paid('p1')],
      ]),
    ).toBe('linearizable');
    // Its commit answer was lost: the retry reuses the response nobody heard, which it tells.
    expect(
      status([
        [pay('p1'), 0, null, 'unknown'],
        [pay('p1'), 5, 6, REUSED('p1')],
        [read(), 7, 8, paid('p1')],
      ]),
    ).toBe('linearizable');
    // Once told, the unheard response is the one every later answer must carry.
    expect(
      status([
        [pay('p1'), 0, null, 'unknown'],
        [pay('p2'), 5, 6, REUSED('p1')],
        [pay('p3'), 7, 8, REUSED('p3')],
      ]),
    ).toBe('violation');
    expect(
      status([
        [pay('p1'), 0, null, 'aborted'],
        [pay('p2'), 5, 6, REUSED('p1')],
      ]),
    ).toBe('violation');
  });

  it('allows GAVE_UP at any time and BAD_REQUEST only for a request the API refuses', () => {
    expect(
      status([
        [pay('p1'), 0, 1, { outcome: 'GAVE_UP' }],
        [read(), 2, 3, { payments: [] }],
      ]),
    ).toBe('linearizable');
    expect(status([[pay('p1', 0), 0, 1, { outcome: 'BAD_REQUEST' }]])).toBe('linearizable');
    expect(status([[pay('p1'), 0, 1, { outcome: 'BAD_REQUEST' }]])).toBe('violation');
  });

  it('checks keys apart: a CREATED on each of two keys', () => {
    const verdict = checkPaymentHistory(
      history([
        [pay('p1', 3000, 'k1'), 0, 1, CREATED('p1')],
        [pay('p2', 3000, 'k2'), 2, 3, CREATED('p2')],
      ]),
    );
    expect(verdict).toMatchObject({ status: 'linearizable', parts: 2 });
  });

  it('stops at its budget and says so instead of passing', () => {
    const rows: Row[] = Array.from({ length: 12 }, (_, i): Row => [pay(`p${i}`), 0, null, 'unknown']);
    rows.push([pay('late', 9999), 1, 2, MISMATCH], [read(), 3, 4, { payments: [] }]);
    const verdict = checkPaymentHistory(history(rows), { budget: 5 });
    expect(verdict.status).toBe('unchecked');
  });
});

describe('the payment history checker on histories linearizable by construction', () => {
  it('never raises a false alarm (property: random pays run through the model, intervals widened)', () => {
    fc.assert(
      fc.property(
        fc.record({
          operations: fc.integer({ min: 1, max: 60 }),
          keys: fc.integer({ min: 1, max: 3 }),
          overlap: fc.integer({ min: 0, max: 8 }),
          seed: fc.integer(),
        }),
        (options) => {
          expect(checkPaymentHistory(syntheticPaymentHistory(options)).status).toBe('linearizable');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a payment case's history, as the harness builds it from its records", () => {
  const request = paymentRequest(KEY, 'pay-in-flight');
  const answer = (outcome: string, invokedAt: number, completedAt: number, paid = false): PaymentAnswer => ({
    request,
    outcome,
    ...(paid ? { response: response('pay-in-flight') } : {}),
    invokedAt,
    completedAt,
  });
  const finalRead: PaymentRead = {
    idempotencyKey: KEY,
    payments: [{ fingerprint: request.fingerprint, ...response('pay-in-flight') }],
    session: 'final-read',
    invokedAt: 50,
    completedAt: 51,
  };

  it('leaves a killed pay out, and judges the REUSED told before the CREATED was sent', () => {
    const judged = judgePaymentHistory(
      [answer('REUSED', 1, 2, true), answer('ROLLED_BACK', 0, 3), answer('CREATED', 4, 5, true)],
      [finalRead],
    );
    expect(judged.summary).toMatchObject({ status: 'violation', operations: 4, parts: 1 });
    expect(judged.problems.map((p) => p.check)).toEqual(['linearizable']);
    expect(judged.problems[0]?.message).toContain(
      `pay ${KEY} pay-in-flight 3000 → REUSED pay-in-flight at 1 ms`,
    );
  });

  it('places a pay the crash cut off (INDETERMINATE) anywhere, or nowhere', () => {
    for (const retry of [answer('CREATED', 10, 11, true), answer('REUSED', 10, 11, true)]) {
      const judged = judgePaymentHistory([answer('INDETERMINATE', 0, 5), retry], [finalRead]);
      expect(judged).toMatchObject({ summary: { status: 'linearizable' }, problems: [] });
    }
  });
});
