/**
 * The payment contract's verb in a spec (spec-verbs.ts):
 *
 *   PAY <key> <payment id> [AMOUNT <minor units>] [CURRENCY <code>] [MERCHANT <id>] [ORDER <id>]
 *       [UNTIL <pause point>]
 *
 * PAY calls the payment design's `pay` with a session context: the idempotency key, the payment id this
 * worker proposes, and the payment drill's payload otherwise (./order-payment-payload.ts: order-1001, 3000,
 * CNY, merchant demo, each unless its option says), its fingerprint computed from it; UNTIL holds it as a
 * RESERVE is held. Its checked answer is the step's.
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
import { type PaymentPayload, requestOf } from './order-payment-payload.ts';

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

/** The options a PAY step may give once each, after its key and payment id. */
const PAY_OPTIONS = ['AMOUNT', 'CURRENCY', 'MERCHANT', 'ORDER', 'UNTIL'] as const;
type PayOption = (typeof PAY_OPTIONS)[number];
const EXPECTED_OPTIONS =
  'AMOUNT <minor units>, CURRENCY <code>, MERCHANT <id>, ORDER <id> or UNTIL <pause point>';

/** The payload fields a PAY step's options name, and its pause point. */
function payOptions(options: readonly Word[], fail: Fail) {
  const given = new Map<PayOption, Word>();
  for (let o = 0; o < options.length; o += 2) {
    const option = options[o] as Word;
    const value = options[o + 1];
    const keyword = option.text.toUpperCase() as PayOption;
    if (!PAY_OPTIONS.includes(keyword))
      fail(option.at, `unexpected "${option.text}" in PAY; expected ${EXPECTED_OPTIONS}`);
    if (given.has(keyword)) fail(option.at, `${keyword} is given twice`);
    if (!value) fail(option.at, `${keyword} needs a value`);
    given.set(keyword, value as Word);
  }
  const payload: Partial<PaymentPayload> = {};
  const amount = given.get('AMOUNT');
  if (amount) payload.amount = minorUnits(amount, fail);
  for (const [keyword, field] of [
    ['CURRENCY', 'currency'],
    ['MERCHANT', 'merchant'],
    ['ORDER', 'order'],
  ] as const) {
    const value = given.get(keyword);
    if (value) payload[field] = value.text;
  }
  const at = given.get('UNTIL');
  const until = at ? pausePointOf(at, PAYMENT_PAUSE_POINTS, fail, 'PAY has no pause point') : undefined;
  return { payload, until };
}

/** PAY key payment-id, then optionally the payload's fields and UNTIL <pause point>, each once. */
function parse(body: StepWords): PayStep {
  const { name, session, words, end } = body;
  const fail: Fail = body.fail;
  const [, key, paymentId, ...options] = words;
  if (!key || !paymentId) fail(words.at(-1)?.at ?? end, 'PAY needs an idempotency key and a payment id');
  const { payload, until } = payOptions(options, fail);
  return {
    contract: PAYMENT_CONTRACT,
    verb: 'PAY',
    name,
    session,
    requestKey: key.text,
    pay: requestOf(key.text, paymentId.text, payload),
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
