/**
 * The payment contract's `linearizable` check of one case: its history — every pay with its times and
 * answer, and every read the harness made of a key through the design (mid-case and the final read) —
 * checked against the payment model (history/check-payment-history.ts), and what the case reports of it.
 * The harness builds the history from its own records; the design only answered.
 */
import { PAYMENT_OUTCOMES, type PaymentRecord } from '../../../../strategies/payment/contract.ts';
import type { Ending } from '../../../history/history.ts';
import { type HistorySummary, summaryOf } from '../../../history/history-summary.ts';
import { checkPaymentHistory } from '../history/check-payment-history.ts';
import type { PaymentHistoryAnswer, PaymentHistoryOperation } from '../history/payment-history.ts';
import type { PaymentAnswer, PaymentProblem } from './payment-invariants.ts';

/** A read of one key through the design's paymentStatus, with when it was made. */
export interface PaymentRead {
  idempotencyKey: string;
  payments: readonly PaymentRecord[];
  session: string;
  invokedAt: number;
  completedAt: number;
}

const OUTCOMES: ReadonlySet<string> = new Set(PAYMENT_OUTCOMES);

/** The payment model judges nothing on the database clock (no TTL, no expiry): no bounds are claimed. */
const NO_CLOCK = { from: 0, to: null };

/**
 * An answer in the contract is an answered operation; ROLLED_BACK (killed before any commit) took no
 * effect; INDETERMINATE or ERROR may or may not have.
 */
function endingOf(answer: PaymentAnswer): Ending<PaymentHistoryAnswer> {
  if (OUTCOMES.has(answer.outcome)) {
    const outcome = answer.outcome as (typeof PAYMENT_OUTCOMES)[number];
    return { kind: 'ok', answer: { outcome, response: answer.response } };
  }
  if (answer.outcome === 'ROLLED_BACK') return { kind: 'aborted' };
  return { kind: 'unknown', why: [answer.outcome, answer.sqlstate].filter(Boolean).join(' ') };
}

/**
 * The case's history. A pay with no times of its own is given the whole case up to the first read after
 * it could have answered — a wider interval than the truth, never a narrower one.
 */
export function paymentCaseHistory(
  answers: readonly PaymentAnswer[],
  reads: readonly PaymentRead[],
): PaymentHistoryOperation[] {
  const end = Math.max(0, ...reads.map((r) => r.completedAt));
  const pays = answers.map((a): Omit<PaymentHistoryOperation, 'id'> => {
    const ending = endingOf(a);
    const invokedAt = a.invokedAt ?? 0;
    const completedAt = ending.kind === 'ok' ? (a.completedAt ?? end) : null;
    const call = { op: 'pay' as const, request: a.request };
    return { call, session: a.request.paymentId, invokedAt, completedAt, db: NO_CLOCK, ending };
  });
  const read = reads.map(
    (r): Omit<PaymentHistoryOperation, 'id'> => ({
      call: { op: 'read', idempotencyKey: r.idempotencyKey },
      session: r.session,
      invokedAt: r.invokedAt,
      completedAt: r.completedAt,
      db: NO_CLOCK,
      ending: {
        kind: 'ok',
        answer: {
          payments: r.payments.map(({ fingerprint, ...response }) => ({ fingerprint, response })),
        },
      },
    }),
  );
  const ordered = [...pays, ...read].sort((a, b) => a.invokedAt - b.invokedAt);
  return ordered.map((op, id) => ({ ...op, id }));
}

/** The check's summary for the case result, and its problem when no order explains the answers. */
export function judgePaymentHistory(
  answers: readonly PaymentAnswer[],
  reads: readonly PaymentRead[],
): { summary: HistorySummary; problems: PaymentProblem[] } {
  const verdict = checkPaymentHistory(paymentCaseHistory(answers, reads));
  // The report shows a payment case's problems, not its witness: the message carries the witness too.
  const witness =
    verdict.status === 'violation'
      ? verdict.witness.map((w) => `${w.call} → ${w.answer} at ${w.at} ms`).join('; ')
      : '';
  const problems: PaymentProblem[] =
    verdict.status === 'violation'
      ? [{ check: 'linearizable', message: `linearizable violated: ${verdict.summary} (${witness})` }]
      : [];
  return { summary: summaryOf(verdict), problems };
}
