/**
 * The payment contract's `linearizable` check: is there an order of a payment case's operations,
 * consistent with real time, in which every answer is the payment model's (payment-model.ts)? Keys are
 * independent registers (P-compositionality), so each key's operations are searched alone, by the one
 * search every contract shares (linearizability.ts); a key that admits no order is shrunk to a smallest
 * witness (witness.ts), and a search past its budget leaves the history `unchecked`, never checked.
 */
import { DEFAULT_SEARCH_BUDGET, type HistoryVerdict } from './check-history.ts';
import { searchLinearization } from './linearizability.ts';
import {
  describePaymentAnswer,
  describePaymentCall,
  keyOf,
  type PaymentCall,
  type PaymentHistoryAnswer,
  type PaymentHistoryOperation,
} from './payment-history.ts';
import { PAYMENT_RULES, paymentModel } from './payment-model.ts';
import type { SearchOperation } from './search-operation.ts';
import { minimalWitness, type WitnessView } from './witness.ts';

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
  const began = performance.now();
  const budget = options.budget ?? DEFAULT_SEARCH_BUDGET;
  const parts = byKey(operations);
  const base = { operations: operations.length, parts: parts.length };
  let steps = 0;
  for (const part of parts) {
    const searched = searchOperations(part);
    const result = searchLinearization(searched, paymentModel({}), budget - steps);
    steps += result.steps;
    if (result.kind === 'budget') {
      const reason = `the search stopped after ${steps} model steps (budget ${budget}) on a key of ${part.length} operations`;
      return { status: 'unchecked', ...base, steps, ms: performance.now() - began, reason };
    }
    if (result.kind === 'none') {
      const start = Math.min(...operations.map((o) => o.invokedAt));
      const models = { trial: paymentModel({}), explain: paymentModel({ withoutGaveUp: true }) };
      const witness = minimalWitness(searched, models, PAYMENT_WITNESS_VIEW, start);
      return { status: 'violation', ...base, steps, ms: performance.now() - began, ...witness };
    }
  }
  return { status: 'linearizable', ...base, steps, ms: performance.now() - began };
}
