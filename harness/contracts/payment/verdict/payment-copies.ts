/**
 * The payment contract's count across the copies of a cluster case (cluster/lost-across-copies.ts, the
 * count every contract shares): a payment acknowledged to a client — CREATED, or REUSED — is kept by a
 * copy when that copy records the key's payment under the acknowledged payment id. A survivor without it
 * lost it (`lostAcknowledged`); a retry there would pay again. What each copy holds is reported.
 */
import type { ClusterCopy } from '../../../cluster/cluster.ts';
import type { ReadCopy } from '../../../cluster/copy-reads.ts';
import { lostAcrossCopies } from '../../../cluster/lost-across-copies.ts';
import type { PaymentFinalRead } from './payment-final-read.ts';
import { type PaymentAnswer, type PaymentProblem, problem } from './payment-invariants.ts';

/** What the report shows of each copy. */
export interface PaymentCopySummary {
  member: string;
  role: ClusterCopy['role'];
  /** Payments recorded there under the keys the case sent. */
  payments: number;
}

interface Acknowledged {
  key: string;
  paymentId: string;
}

function acknowledged(answers: readonly PaymentAnswer[]): Acknowledged[] {
  const byId = new Map<string, Acknowledged>();
  for (const a of answers) {
    if ((a.outcome === 'CREATED' || a.outcome === 'REUSED') && a.response)
      byId.set(a.response.paymentId, { key: a.request.idempotencyKey, paymentId: a.response.paymentId });
  }
  return [...byId.values()];
}

const keeps = (read: PaymentFinalRead, a: Acknowledged) =>
  read.get(a.key)?.payments.some((p) => p.paymentId === a.paymentId) ?? false;

/** Acknowledged payments some survivor lacks, the count and its problem, and each copy's payments. */
export function paymentsAcrossCopies(
  answers: readonly PaymentAnswer[],
  copies: readonly ReadCopy<PaymentFinalRead>[],
): { lostAcknowledged: number; problems: PaymentProblem[]; copies: PaymentCopySummary[] } {
  const lost = lostAcrossCopies(acknowledged(answers), copies, keeps);
  return {
    lostAcknowledged: lost.length,
    problems: problem(
      'lostAcknowledged',
      lost.map((a) => `${a.key} ${a.paymentId}`),
      'acknowledged payments a member the cluster goes on with does not have',
    ),
    copies: copies.map((c) => ({
      member: c.member,
      role: c.role,
      payments: [...c.read.values()].reduce((n, k) => n + k.payments.length, 0),
    })),
  };
}
