/**
 * The payment contract's verb in a spec (spec-verbs.ts):
 *
 *   PAY <key> <payment id> [AMOUNT <minor units>] [UNTIL <pause point>]
 *
 * PAY calls the payment design's `pay` with a session context: the idempotency key, the payment id this
 * worker proposes, and the payment drill's payload otherwise (./order-payment-payload.ts: order-1001, CNY,
 * merchant demo, 3000 unless AMOUNT says), its fingerprint computed from it; UNTIL holds it as a RESERVE is
 * held. Its checked answer is the step's.
 */
import {
  PAYMENT_PAUSE_POINTS,
  type PaymentDesign,
  type PaymentPausePoint,
  type PaymentRequest,
} from '../../../../strategies/payment/contract.ts';
import { Errors } from '../../../errors.ts';
import { startPausable } from '../../../interleaving/call-steps.ts';
import type { ContractStep, Step } from '../../../interleaving/permutation.ts';
import type { Session } from '../../../interleaving/session.ts';
import type { Fail } from '../../../interleaving/spec-tokens.ts';
import type { SpecVerbs, StepEnvironment } from '../../../interleaving/spec-verbs.ts';
import { pausePointOf, type StepWords, type Word } from '../../../interleaving/spec-words.ts';
import type { Outcome } from '../../../interleaving/step-outcome.ts';
import { checkPaymentAnswer } from '../designs/payment-module.ts';
import { paymentRequest } from './order-payment-payload.ts';

export const PAYMENT_CONTRACT = 'payment';

/** The payment design's pay, with the request the spec's PAY step wrote. */
export interface PayStep extends ContractStep {
  pay: PaymentRequest;
  until?: PaymentPausePoint;
}

/** The step as a PAY step, or undefined for any other step. */
export function payStepOf(step: Step | undefined): PayStep | undefined {
  return step && 'verb' in step && step.contract === PAYMENT_CONTRACT ? (step as PayStep) : undefined;
}

/** An amount in minor units (3000 = 30.00): a whole number, at least 1. */
function minorUnits(value: Word, fail: Fail): number {
  const amount = Number(value.text);
  if (!/^[0-9]+$/.test(value.text) || !Number.isSafeInteger(amount) || amount < 1)
    fail(value.at, `AMOUNT must be a whole number of minor units, at least 1, got "${value.text}"`);
  return amount;
}

/** PAY key payment-id, then optionally AMOUNT <minor units> and UNTIL <pause point>, each once. */
function parse(body: StepWords): PayStep {
  const { name, session, words, end } = body;
  const fail: Fail = body.fail;
  const [, key, paymentId, ...options] = words;
  if (!key || !paymentId) fail(words.at(-1)?.at ?? end, 'PAY needs an idempotency key and a payment id');
  let amount: number | undefined;
  let until: PaymentPausePoint | undefined;
  for (let o = 0; o < options.length; o += 2) {
    const option = options[o] as Word;
    const value = options[o + 1];
    const keyword = option.text.toUpperCase();
    if (keyword !== 'AMOUNT' && keyword !== 'UNTIL')
      fail(
        option.at,
        `unexpected "${option.text}" in PAY; expected AMOUNT <minor units> or UNTIL <pause point>`,
      );
    if ((keyword === 'AMOUNT' ? amount : until) !== undefined) fail(option.at, `${keyword} is given twice`);
    if (!value) fail(option.at, `${keyword} needs a value`);
    if (keyword === 'AMOUNT') amount = minorUnits(value, fail);
    else until = pausePointOf(value, PAYMENT_PAUSE_POINTS, fail, 'PAY has no pause point');
  }
  return {
    contract: PAYMENT_CONTRACT,
    verb: 'PAY',
    name,
    session,
    requestKey: key.text,
    pay: paymentRequest(key.text, paymentId.text, amount),
    ...(until ? { until } : {}),
  };
}

/** PAY: the payment design's pay on the session's connection; its checked answer is the step's result. */
function start(session: Session, contractStep: ContractStep, env: StepEnvironment): Promise<Outcome> {
  const step = payStepOf(contractStep);
  const payment = env.contract?.design as PaymentDesign | undefined;
  if (!step) throw new Error(`step ${contractStep.name} is not a PAY step`);
  if (!payment) throw Errors.badInput(`step ${step.name} pays, but no payment design was given`);
  return startPausable(session, step, step.pay.idempotencyKey, env, async (ctx) => {
    // An answer outside the contract (an unknown outcome) is an error naming it, as for any worker.
    const checked = checkPaymentAnswer(await payment.pay(ctx, step.pay));
    if ('problem' in checked) throw new Error(checked.problem);
    return { status: 'ok', answer: checked.answer };
  });
}

export const PAYMENT_VERBS: SpecVerbs = {
  contract: PAYMENT_CONTRACT,
  drives: 'pays (the payment contract)',
  names: ['PAY'],
  onANode: [],
  parse,
  start,
};
