/**
 * One pay killed -9 in a crash child (crash/crash-child.ts): a separate Node process imports the case's
 * payment design, runs `pay` on its own connection to the case's schema until it prints its stage line at
 * `crashAt`, and is killed there with SIGKILL; the parent waits until PostgreSQL has seen the backend go.
 * The killed call is never answered: what it may have left is decided by where it stopped (lostOutcome).
 */
import type { ClientBase } from 'pg';
import type { PausePoint } from '../../../../strategies/contract.ts';
import type { PaymentRequest } from '../../../../strategies/payment/contract.ts';
import { crashOrderOn, runUntilStage } from '../../../crash/crash-runner.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { harnessNow } from '../../../history/recorder.ts';
import { checkPaymentAnswer } from '../designs/payment-module.ts';
import { PAYMENT_IMPORTER } from '../designs/payment-registry.ts';
import type { PaymentAnswer } from '../verdict/payment-invariants.ts';
import type { PaymentCrash, PaymentScriptContext } from './payment-scenario.ts';
import { lostOutcome, type PaymentSessions } from './payment-sessions.ts';

/** A case's `crashPay`: the design's module killed in a child, the answer recorded with the others. */
export function crashPayOf(
  connection: CaseConnection,
  control: { admin: ClientBase; timeoutMs: number },
  moduleUrl: string,
  sessions: PaymentSessions,
): PaymentScriptContext['crashPay'] {
  return async (request, crashAt) => {
    const crash = await payKilledAt(connection, control, moduleUrl, request, crashAt);
    sessions.record(crash.answer);
    return crash;
  };
}

async function payKilledAt(
  connection: CaseConnection,
  control: { admin: ClientBase; timeoutMs: number },
  moduleUrl: string,
  request: PaymentRequest,
  crashAt: PausePoint,
): Promise<PaymentCrash> {
  // Sent before the child starts, so the history's interval holds the whole call (its end is unknown).
  const invokedAt = harnessNow();
  const order = crashOrderOn(
    connection,
    { moduleUrl, importer: PAYMENT_IMPORTER },
    { operation: 'pay', args: [request] },
    crashAt,
  );
  const child = await runUntilStage(order, control.admin, control.timeoutMs);
  if (!('killAndWaitGone' in child)) {
    const answer = { ...finished(request, child.result), invokedAt, completedAt: harnessNow() };
    return { stage: 'done', signal: 'none', answer };
  }
  const { signal } = await child.killAndWaitGone();
  // The child prints its stage line only at `crashAt`: that is where it was killed.
  const answer: PaymentAnswer = { request, outcome: lostOutcome(crashAt), invokedAt };
  return { stage: child.stage, signal: signal ?? 'none', answer };
}

/** The answer of a pay that ended in the child before its pause point, checked as any other answer. */
function finished(request: PaymentRequest, result: unknown): PaymentAnswer {
  const checked = checkPaymentAnswer(result);
  return 'problem' in checked
    ? { request, outcome: 'ERROR', error: checked.problem }
    : { request, ...checked.answer };
}
