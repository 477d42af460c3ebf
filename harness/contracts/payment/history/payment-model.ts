/**
 * The sequential model of the payment contract (docs/contract.md, "Payments"): per idempotency key a
 * register, written once. The checker (linearizability.ts) supplies the order, so which of two racing
 * workers wins is not the model's business.
 *
 * pay(key, fingerprint, order, amount, currency, payment id):
 *   - a key, fingerprint or amount the API refuses → BAD_REQUEST, nothing written (or the pay goes on);
 *   - the key is recorded with the same fingerprint → REUSED carrying the recorded response;
 *   - the key is recorded with another fingerprint → MISMATCH, nothing written;
 *   - otherwise CREATED: the key is recorded with this fingerprint and the response, which is this
 *     request's payment (its order, amount and currency; the payment id the design gave it);
 *   - GAVE_UP (a retrying design ran out of attempts) is allowed at any time and writes nothing.
 * read(key) (the harness's, through paymentStatus): the key's one recorded payment, or none.
 * A pay of unknown ending that took effect recorded a response nobody heard: the first REUSED or read
 * that shows it tells the model which.
 */
import type { PaymentRequest, PaymentResponse } from '../../../../strategies/payment/contract.ts';
import type { ModelResult, ModelState, SearchModel } from '../../../history/search-model.ts';
import {
  type PaymentCall,
  type PaymentHistoryAnswer,
  type ReadPayment,
  sameResponse,
} from './payment-history.ts';

/** A key's register, or its removal (the undo of its first write). */
export interface PaymentChange {
  key: string;
  payment: ReadPayment | undefined;
}

type Result = ModelResult<PaymentHistoryAnswer, PaymentChange> & { rule: PaymentRule };

/**
 * The payment contract's rules, one line each, as docs/contract.md ("The rules the checker applies")
 * states them word for word (test/contract-rules.test.ts holds the two texts equal); every answer the model
 * allows carries the rule that gives it, so a witness names the line of the contract it applied.
 */
export const PAYMENT_RULES = {
  'pay.refused':
    'a key, fingerprint or amount the API refuses (empty, or an amount that is not a positive integer): BAD_REQUEST, nothing written (or the pay goes on as the rules below say)',
  'pay.reused':
    'a key recorded with the same fingerprint: REUSED, carrying the recorded response (identical to the one the creating pay was given)',
  'pay.mismatch': 'a key recorded with another fingerprint: MISMATCH, nothing written',
  'pay.created':
    'an unrecorded key: CREATED, recording this fingerprint and the response, which is this request’s payment (its order, amount and currency; the payment id is the design’s)',
  'pay.gave-up': 'GAVE_UP (a retrying design ran out of attempts) at any time, writing nothing',
  read: 'read (paymentStatus): the key’s one recorded payment, or none',
} as const;

export type PaymentRule = keyof typeof PAYMENT_RULES;

export class PaymentState implements ModelState<PaymentChange> {
  private readonly keys = new Map<string, ReadPayment>();

  payment(key: string): ReadPayment | undefined {
    return this.keys.get(key);
  }

  apply(changes: readonly PaymentChange[]): PaymentChange[] {
    const undo: PaymentChange[] = [];
    for (const { key, payment } of changes) {
      undo.push({ key, payment: this.keys.get(key) });
      if (payment) this.keys.set(key, payment);
      else this.keys.delete(key);
    }
    return undo.reverse();
  }

  /** Exact: a register per key, written as text (a part of a payment history holds one key). */
  fingerprint(): string {
    return JSON.stringify([...this.keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

/**
 * What the API refuses (the payment drill's payload rules): no key, no fingerprint, an amount not a positive
 * integer. The contract's rule, written here rather than taken from the designs' support code, so that the
 * model does not follow a design's change of it.
 */
function refused(request: PaymentRequest): boolean {
  return (
    request.idempotencyKey.length === 0 ||
    request.fingerprint.length === 0 ||
    !Number.isSafeInteger(request.amount) ||
    request.amount <= 0
  );
}

/** A response is this request's payment when it carries the request's order, amount and currency. */
const isPaymentOf = (response: PaymentResponse, request: PaymentRequest) =>
  response.order === request.order &&
  response.amount === request.amount &&
  response.currency === request.currency;

/** The response the recorded answer carries, when it has this outcome. */
function toldResponse(wanted: PaymentHistoryAnswer | undefined, outcome: 'CREATED' | 'REUSED') {
  return wanted && 'outcome' in wanted && wanted.outcome === outcome ? wanted.response : undefined;
}

function payResults(state: PaymentState, request: PaymentRequest, wanted: PaymentHistoryAnswer | undefined) {
  const key = request.idempotencyKey;
  const results: Result[] = refused(request)
    ? [{ answer: { outcome: 'BAD_REQUEST' }, changes: [], rule: 'pay.refused' }]
    : [];
  const recorded = state.payment(key);
  if (recorded && recorded.fingerprint !== request.fingerprint) {
    results.push({ answer: { outcome: 'MISMATCH' }, changes: [], rule: 'pay.mismatch' });
  } else if (recorded?.response) {
    results.push({
      answer: { outcome: 'REUSED', response: recorded.response },
      changes: [],
      rule: 'pay.reused',
    });
  } else if (recorded) {
    // Recorded by a pay nobody heard the answer of: this REUSED tells which response it was.
    const told = toldResponse(wanted, 'REUSED');
    const changes = told ? [{ key, payment: { ...recorded, response: told } }] : [];
    results.push({ answer: { outcome: 'REUSED', response: told }, changes, rule: 'pay.reused' });
  } else {
    const told = toldResponse(wanted, 'CREATED');
    if (!told || isPaymentOf(told, request)) {
      const payment = { fingerprint: request.fingerprint, response: told };
      results.push({
        answer: { outcome: 'CREATED', response: told },
        changes: [{ key, payment }],
        rule: 'pay.created',
      });
    }
  }
  return results;
}

function readResults(state: PaymentState, key: string, wanted: PaymentHistoryAnswer | undefined): Result[] {
  const recorded = state.payment(key);
  if (!recorded) return [{ answer: { payments: [] }, changes: [], rule: 'read' }];
  if (recorded.response) return [{ answer: { payments: [recorded] }, changes: [], rule: 'read' }];
  const [read] = wanted && 'payments' in wanted && wanted.payments.length === 1 ? wanted.payments : [];
  const told = read?.fingerprint === recorded.fingerprint ? read.response : undefined;
  const payment = { ...recorded, response: told };
  return [{ answer: { payments: [payment] }, changes: told ? [{ key, payment }] : [], rule: 'read' }];
}

/** Every answer the contract allows for `call` in `state`; `wanted` tells a response nobody heard yet. */
export function paymentResults(
  state: PaymentState,
  call: PaymentCall,
  wanted: PaymentHistoryAnswer | undefined,
  options: { withoutGaveUp?: boolean } = {},
): Result[] {
  if (call.op === 'read') return readResults(state, call.idempotencyKey, wanted);
  const results = payResults(state, call.request, wanted);
  return options.withoutGaveUp
    ? results
    : [...results, { answer: { outcome: 'GAVE_UP' }, changes: [], rule: 'pay.gave-up' }];
}

const sameRead = (a: ReadPayment, b: ReadPayment) =>
  a.fingerprint === b.fingerprint &&
  (a.response === undefined || (b.response !== undefined && sameResponse(a.response, b.response)));

/** Whether a recorded answer is the model's: the same outcome, and the same response where it has one. */
export function samePaymentAnswer(model: PaymentHistoryAnswer, recorded: PaymentHistoryAnswer): boolean {
  if ('outcome' in model && 'outcome' in recorded) {
    if (model.outcome !== recorded.outcome) return false;
    if (model.outcome !== 'CREATED' && model.outcome !== 'REUSED') return true;
    const { response } = model;
    return (
      response === undefined || (recorded.response !== undefined && sameResponse(response, recorded.response))
    );
  }
  if ('payments' in model && 'payments' in recorded)
    return (
      model.payments.length === recorded.payments.length &&
      model.payments.every((p, i) => {
        const other = recorded.payments[i];
        return other !== undefined && sameRead(p, other);
      })
    );
  return false;
}

/** The payment model as the search takes it; `withoutGaveUp` for the witness's explanations. */
export function paymentModel(options: {
  withoutGaveUp?: boolean;
}): SearchModel<PaymentCall, PaymentHistoryAnswer, PaymentCall, PaymentChange, PaymentState> {
  return {
    start: () => new PaymentState(),
    results: (state, call, wanted) => paymentResults(state, call, wanted, options),
    sameAnswer: samePaymentAnswer,
  };
}
