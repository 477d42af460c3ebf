/**
 * The verdict of one payment case, as verdict.ts judges a reservation case: the invariants the harness
 * computed, the scenario's exact outcomes and observations, requests that failed, and what it claims to
 * have exercised. A safe design passes when nothing fires; a negative control only when a check its
 * `caughtBy` names for the scenario fires (caught only by another, it failed for the wrong reason).
 */
import type { PaymentCheckName, PaymentDesign } from '../../strategies/payment/contract.ts';
import { formatOutcomes, type Observed, type OutcomeCounts } from './case-result.ts';
import type { PaymentAnswer, PaymentProblem } from './payment-invariants.ts';

/** The outcomes the harness records beside the contract's: a held pay it killed, an exception. */
const PAYMENT_ANSWER_ORDER = [
  'CREATED',
  'REUSED',
  'MISMATCH',
  'BAD_REQUEST',
  'GAVE_UP',
  'ROLLED_BACK',
  'INDETERMINATE',
  'ERROR',
];

export function countPaymentOutcomes(answers: readonly PaymentAnswer[]): OutcomeCounts {
  const counts: OutcomeCounts = {};
  for (const outcome of PAYMENT_ANSWER_ORDER) {
    const n = answers.filter((a) => a.outcome === outcome).length;
    if (n > 0) counts[outcome] = n;
  }
  return counts;
}

export function exactOutcomes(expected: OutcomeCounts | undefined, seen: OutcomeCounts): PaymentProblem[] {
  if (!expected) return [];
  const names = new Set([...Object.keys(expected), ...Object.keys(seen)]);
  const same = [...names].every((k) => (expected[k] ?? 0) === (seen[k] ?? 0));
  return same
    ? []
    : [
        {
          check: 'outcomes',
          message: `outcomes ${formatOutcomes(seen)}, expected ${formatOutcomes(expected)}`,
        },
      ];
}

export function exactObservations(
  expected: Readonly<Record<string, Observed>> | undefined,
  seen: Readonly<Record<string, Observed>>,
): PaymentProblem[] {
  return Object.entries(expected ?? {})
    .filter(([name, value]) => JSON.stringify(seen[name]) !== JSON.stringify(value))
    .map(([name, value]) => ({
      check: 'observations' as const,
      message: `${name} ${JSON.stringify(seen[name] ?? null)}, expected ${JSON.stringify(value)}`,
    }));
}

export function erroredPayments(answers: readonly PaymentAnswer[]): PaymentProblem[] {
  return answers
    .filter((a) => a.outcome === 'ERROR')
    .map((a) => ({
      check: 'errors' as const,
      message: `${a.request.paymentId}: ${a.sqlstate ?? ''} ${a.error ?? ''}`.trim(),
    }));
}

export interface PaymentJudgement {
  status: 'pass' | 'fail';
  fired: PaymentCheckName[];
  /** Why the case failed; empty on pass. */
  problems: string[];
  boundary: string;
}

export function judgePayment(
  design: PaymentDesign,
  scenarioId: string,
  found: readonly PaymentProblem[],
): PaymentJudgement {
  const fired = [...new Set(found.map((p) => p.check))];
  const messages = found.map((p) => p.message);
  const notExercised = found.filter((p) => p.check === 'exercised');
  if (notExercised.length > 0) {
    return {
      status: 'fail',
      fired,
      problems: messages,
      boundary: `not exercised: ${notExercised.map((p) => p.message).join('; ')}`,
    };
  }
  if (design.expect === 'hold') {
    return found.length === 0
      ? { status: 'pass', fired, problems: [], boundary: 'held: one payment and one outbox row per key' }
      : { status: 'fail', fired, problems: messages, boundary: `broke: ${messages.join('; ')}` };
  }
  const catching = design.caughtBy?.[scenarioId] ?? [];
  const caught = fired.filter((c) => catching.includes(c));
  if (caught.length > 0)
    return { status: 'pass', fired, problems: [], boundary: `caught: ${messages.join('; ')}` };
  const problem =
    fired.length === 0
      ? `not caught: expected ${catching.join(' or ')} to fire, nothing did`
      : `caught for the wrong reason: ${fired.join(', ')} fired, expected ${catching.join(' or ')}`;
  return { status: 'fail', fired, problems: [problem, ...messages], boundary: problem };
}
