/**
 * The payment contract's `linearizable` check: is there an order of a payment case's operations,
 * consistent with real time, in which every answer is the payment model's (payment-model.ts)? Keys are
 * independent registers (P-compositionality), so each key's operations are searched alone, by the one
 * check every contract shares (check-parts.ts).
 */
import { checkParts, type HistoryVerdict } from '../../../history/check-parts.ts';
import type { SearchOperation } from '../../../history/search-operation.ts';
import type { WitnessView } from '../../../history/witness.ts';
import {
  describePaymentAnswer,
  describePaymentCall,
  keyOf,
  type PaymentCall,
  type PaymentHistoryAnswer,
  type PaymentHistoryOperation,
} from './payment-history.ts';
import { PAYMENT_RULES, paymentModel } from './payment-model.ts';

type PaymentSearchOperation = SearchOperation<PaymentCall, PaymentHistoryAnswer, PaymentCall>;

/** Answered operations with their answer; unknown ones optional, with any answer; aborted ones left out. */
function searchOperations(operations: readonly PaymentHistoryOperation[]): PaymentSearchOperation[] {
  return operations
    .filter((op) => op.ending.kind !== 'aborted')
    .map((op) => ({
      op,
      timed: op.call,
      wanted: op.ending.kind === 'ok' ? op.ending.answer : undefined,
      required: op.ending.kind === 'ok',
    }));
}

/** A pay that may have written its key's register: one answered CREATED, or one nobody heard from. */
const mayHaveWritten = (s: PaymentSearchOperation) =>
  s.op.call.op === 'pay' &&
  (s.wanted === undefined || ('outcome' in s.wanted && s.wanted.outcome === 'CREATED'));

/** A witness keeps every pay that may have written its key: a REUSED is shown with the CREATED it needs. */
const PAYMENT_WITNESS_VIEW: WitnessView<PaymentCall, PaymentHistoryAnswer, PaymentCall> = {
  describeCall: describePaymentCall,
  describeAnswer: describePaymentAnswer,
  droppable: (chunk) => !chunk.some(mayHaveWritten),
  describeRule: (rule) => PAYMENT_RULES[rule as keyof typeof PAYMENT_RULES] ?? rule,
};

/** Each key's operations, in invocation order. */
function byKey(operations: readonly PaymentHistoryOperation[]): PaymentHistoryOperation[][] {
  const parts = new Map<string, PaymentHistoryOperation[]>();
  for (const op of operations) {
    const key = keyOf(op.call);
    const part = parts.get(key);
    if (part) part.push(op);
    else parts.set(key, [op]);
  }
  return [...parts.values()];
}

export function checkPaymentHistory(
  operations: readonly PaymentHistoryOperation[],
  options: { budget?: number } = {},
): HistoryVerdict {
  const parts = byKey(operations).map((part) => ({ searched: searchOperations(part), size: part.length }));
  const start = Math.min(...operations.map((o) => o.invokedAt));
  return checkParts(
    parts,
    { operations: operations.length, start },
    {
      model: paymentModel({}),
      explain: paymentModel({ withoutGaveUp: true }),
      view: PAYMENT_WITNESS_VIEW,
      part: 'a key',
    },
    options.budget,
  );
}
