/**
 * The payment contract's invariants (the isolation-matrix chapter's payment drill), each a small pure
 * function over what the harness sent, the answers it got and its own final read: at most one payment per
 * key, exactly one outbox row per payment, every REUSED answer the winner's response to the winner's payload,
 * a MISMATCH writing nothing, no payment that no answer acknowledges, and the design's audit agreeing with
 * the harness's reads.
 */
import type {
  PaymentAudit,
  PaymentCheckName,
  PaymentRequest,
  PaymentResponse,
} from '../../../../strategies/payment/contract.ts';
import type { KeyReading, PaymentFinalRead } from './payment-final-read.ts';

/** An answer the case recorded: the design's, or what the harness saw instead (an error, a kill). */
export interface PaymentAnswer {
  request: PaymentRequest;
  outcome: string;
  response?: PaymentResponse;
  sqlstate?: string;
  error?: string;
  /** Harness clock, ms (recorder.ts): when the pay was sent and when its answer (or its loss) was in. */
  invokedAt?: number;
  completedAt?: number;
}

export interface PaymentProblem {
  check: PaymentCheckName;
  message: string;
}

/** The totals of the harness's reads, the figures the payment drill reports (payment 1, outbox 1). */
export interface PaymentCounts {
  payments: number;
  outbox: number;
}

export function countsOf(read: PaymentFinalRead): PaymentCounts {
  let payments = 0;
  let outbox = 0;
  for (const key of read.values()) {
    payments += key.payments.length;
    outbox += key.outbox.length;
  }
  return { payments, outbox };
}

const sameResponse = (a: PaymentResponse, b: PaymentResponse) =>
  a.paymentId === b.paymentId && a.order === b.order && a.amount === b.amount && a.currency === b.currency;

/** One problem naming how many `keys` show it, or none. */
export const problem = (check: PaymentCheckName, keys: readonly string[], what: string): PaymentProblem[] =>
  keys.length === 0 ? [] : [{ check, message: `${check} ${keys.length}: ${what} (${keys.join(', ')})` }];

export function onePaymentPerKey(read: PaymentFinalRead): PaymentProblem[] {
  const many = [...read]
    .filter(([, k]) => k.payments.length > 1)
    .map(([key, k]) => `${key} ×${k.payments.length}`);
  return problem('onePaymentPerKey', many, 'keys with more than one payment');
}

/** Payments not announced by exactly one outbox row of their key, and outbox rows announcing none. */
function outboxOff(reading: KeyReading): string[] {
  const off = reading.payments
    .filter((p) => reading.outbox.filter((o) => o.paymentId === p.paymentId).length !== 1)
    .map(
      (p) =>
        `${p.paymentId}: ${reading.outbox.filter((o) => o.paymentId === p.paymentId).length} outbox rows`,
    );
  const orphans = reading.outbox
    .filter((o) => !reading.payments.some((p) => p.paymentId === o.paymentId))
    .map((o) => `outbox for ${o.paymentId}: no payment`);
  return [...off, ...orphans];
}

export function outboxMatchesPayment(read: PaymentFinalRead): PaymentProblem[] {
  return problem(
    'outboxMatchesPayment',
    [...read.values()].flatMap(outboxOff),
    'payment and outbox disagree',
  );
}

/** CREATED and REUSED answers of a key that are not its one recorded payment's response. */
export function reusedMatchesWinner(
  answers: readonly PaymentAnswer[],
  read: PaymentFinalRead,
): PaymentProblem[] {
  const off: string[] = [];
  for (const answer of answers) {
    if ((answer.outcome !== 'CREATED' && answer.outcome !== 'REUSED') || !answer.response) continue;
    const recorded = read.get(answer.request.idempotencyKey)?.payments ?? [];
    const winner = recorded.length === 1 ? recorded[0] : undefined;
    if (!winner || !sameResponse(winner, answer.response)) {
      off.push(`${answer.request.idempotencyKey} ${answer.outcome} ${answer.response.paymentId}`);
    }
  }
  return problem('reusedMatchesWinner', off, "answers that are not the key's one recorded response");
}

/** REUSED answers to a payload other than the one recorded for the key (a mismatch answered as a reuse). */
export function reusedOtherPayload(
  answers: readonly PaymentAnswer[],
  read: PaymentFinalRead,
): PaymentProblem[] {
  const off = answers
    .filter((a) => a.outcome === 'REUSED')
    .filter((a) => {
      const recorded = read.get(a.request.idempotencyKey)?.payments ?? [];
      return recorded.length > 0 && !recorded.some((p) => p.fingerprint === a.request.fingerprint);
    })
    .map((a) => `${a.request.idempotencyKey} amount ${a.request.amount}`);
  return problem('reusedOtherPayload', off, 'REUSED answers to another payload');
}

/** A MISMATCH answer's request left a row behind (its proposed payment id is in a table), or was wrong. */
export function mismatchWrote(answers: readonly PaymentAnswer[], read: PaymentFinalRead): PaymentProblem[] {
  const off = answers
    .filter((a) => a.outcome === 'MISMATCH')
    .filter((a) => {
      const key = read.get(a.request.idempotencyKey);
      const wrote =
        key?.payments.some((p) => p.paymentId === a.request.paymentId) ||
        key?.outbox.some((o) => o.paymentId === a.request.paymentId);
      const sameAsRecorded = key?.payments.some((p) => p.fingerprint === a.request.fingerprint);
      return wrote || sameAsRecorded || (key?.payments.length ?? 0) === 0;
    })
    .map((a) => `${a.request.idempotencyKey} ${a.request.paymentId}`);
  return problem('mismatchWrote', off, 'MISMATCH answers that wrote, or that no other payload explains');
}

/**
 * Payments under a sent key whose id no CREATED or REUSED answer carries: an attempt that rolled back, or
 * was killed before it committed, left its payment behind, or one committed that nobody was told of (a
 * killed attempt's committed payment is acknowledged by the retry that reuses it).
 */
export function unacknowledgedPayment(
  answers: readonly PaymentAnswer[],
  read: PaymentFinalRead,
): PaymentProblem[] {
  const told = new Set(answers.flatMap((a) => (a.response ? [a.response.paymentId] : [])));
  const off = [...read.values()].flatMap((k) =>
    k.payments.filter((p) => !told.has(p.paymentId)).map((p) => p.paymentId),
  );
  return problem('unacknowledgedPayment', off, 'payments no answer acknowledged');
}

/**
 * The design's audit against the harness's reads: its totals must be the sent keys' (a row under a key
 * nobody sent shows here), and its own counts of duplicates and unannounced payments must agree.
 */
export function paymentAuditMismatch(read: PaymentFinalRead, audit: PaymentAudit): PaymentProblem[] {
  const counts = countsOf(read);
  const keys = [...read.values()];
  const harness: PaymentAudit = {
    payments: counts.payments,
    outbox: counts.outbox,
    keysWithManyPayments: keys.filter((k) => k.payments.length > 1).length,
    paymentsWithoutOutbox: keys.reduce(
      (n, k) => n + k.payments.filter((p) => !k.outbox.some((o) => o.paymentId === p.paymentId)).length,
      0,
    ),
    outboxWithoutPayment: keys.reduce(
      (n, k) => n + k.outbox.filter((o) => !k.payments.some((p) => p.paymentId === o.paymentId)).length,
      0,
    ),
  };
  const off = (Object.keys(harness) as (keyof PaymentAudit)[])
    .filter((field) => harness[field] !== audit[field])
    .map((field) => `${field}: audit ${audit[field]}, read ${harness[field]}`);
  return problem('paymentAuditMismatch', off, "the design's audit disagrees with the harness's reads");
}

/** Every invariant of the contract, in the order of PAYMENT_CHECKS. */
export function paymentInvariantProblems(
  answers: readonly PaymentAnswer[],
  read: PaymentFinalRead,
  audit: PaymentAudit,
): PaymentProblem[] {
  return [
    ...onePaymentPerKey(read),
    ...outboxMatchesPayment(read),
    ...reusedMatchesWinner(answers, read),
    ...reusedOtherPayload(answers, read),
    ...mismatchWrote(answers, read),
    ...unacknowledgedPayment(answers, read),
    ...paymentAuditMismatch(read, audit),
  ];
}
