/**
 * A payment case's history (history.ts's operations, with the payment contract's calls and answers): every
 * `pay` the case drove and every read the harness made of a key through the design, with invocation and
 * completion on the harness clock and the answer — the input of the payment model's linearizability check
 * (payment-model.ts, check-payment-history.ts). A pay whose answer a fault swallowed (a killed backend
 * after its commit, a crashed server, a lost commit answer) has an unknown ending; one the harness killed
 * before any commit is aborted.
 */
import type {
  PaymentOutcome,
  PaymentRequest,
  PaymentResponse,
} from '../../../../strategies/payment/contract.ts';
import type { HistoryOperation } from '../../../history/history.ts';

/** What a payment operation asked: a pay, or the harness's read of a key's payments. */
export type PaymentCall = { op: 'pay'; request: PaymentRequest } | { op: 'read'; idempotencyKey: string };

/** A payment row as a read shows it; `response` undefined: not known yet (the model's, never a read's). */
export interface ReadPayment {
  fingerprint: string;
  response?: PaymentResponse | undefined;
}

/** What it answered: pay's outcome (and response), or every payment row the read found under the key. */
export type PaymentHistoryAnswer =
  | { outcome: PaymentOutcome; response?: PaymentResponse | undefined }
  | { payments: readonly ReadPayment[] };

export type PaymentHistoryOperation = HistoryOperation<PaymentCall, PaymentHistoryAnswer>;

export const keyOf = (call: PaymentCall): string =>
  call.op === 'pay' ? call.request.idempotencyKey : call.idempotencyKey;

export function sameResponse(a: PaymentResponse, b: PaymentResponse): boolean {
  return (
    a.paymentId === b.paymentId && a.order === b.order && a.amount === b.amount && a.currency === b.currency
  );
}

/** One line for an operation, for the witness: `pay idem-order-1001 pay-worker-a 3000`. */
export function describePaymentCall(call: PaymentCall): string {
  if (call.op === 'read') return `read ${call.idempotencyKey}`;
  const { idempotencyKey, paymentId, amount } = call.request;
  return `pay ${idempotencyKey} ${paymentId} ${amount}`;
}

export function describePaymentAnswer(answer: PaymentHistoryAnswer): string {
  if ('outcome' in answer)
    return answer.response ? `${answer.outcome} ${answer.response.paymentId}` : answer.outcome;
  const { payments } = answer;
  if (payments.length === 0) return 'no payment';
  if (payments.length > 1) return `${payments.length} payments`;
  const [one] = payments;
  return one?.response ? `payment ${one.response.paymentId}` : 'a payment';
}
