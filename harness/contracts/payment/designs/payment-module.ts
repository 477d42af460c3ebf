/**
 * The runtime check of a payment design (strategies/payment/contract.ts), as strategy-module.ts checks a
 * reservation strategy: one zod schema, so a design missing a member, naming an unknown pause point or
 * check, declaring a control without `caughtBy`, or knobs without `configure`, is refused when it loads,
 * in one line.
 */
import { z } from 'zod';
import {
  PAYMENT_CHECKS,
  PAYMENT_OUTCOMES,
  PAYMENT_PAUSE_POINTS,
  type PaymentDesign,
  type PaymentResult,
} from '../../../../strategies/payment/contract.ts';
import {
  checkAnswerAgainst,
  checkDesignAgainst,
  declaredDesignShape,
  refinedDesignSchema,
} from '../../../registry/design-check.ts';
import { operation } from '../../../registry/strategy-module.ts';

export const paymentDesignSchema = refinedDesignSchema(
  z.object({
    ...declaredDesignShape('payment', PAYMENT_CHECKS),
    pausePoints: z.strictObject({
      pay: z.array(z.enum(PAYMENT_PAUSE_POINTS)),
    }),
    setup: operation,
    pay: operation,
    paymentStatus: operation,
    outboxFor: operation,
    audit: operation,
  }),
);

/** The design when `value` is one, otherwise one line naming every member that is wrong. */
export function checkPaymentDesign(value: unknown): { design: PaymentDesign } | { problem: string } {
  return checkDesignAgainst<PaymentDesign>(paymentDesignSchema, value, 'payment');
}

const responseSchema = z.strictObject({
  paymentId: z.string().min(1),
  order: z.string(),
  amount: z.number().int(),
  currency: z.string(),
});

const answerSchema = z.strictObject({
  outcome: z.enum(PAYMENT_OUTCOMES),
  response: responseSchema.optional(),
});

/** What pay answered, if the harness can record it: an outcome of the contract (and a response). */
export function checkPaymentAnswer(answer: unknown): { answer: PaymentResult } | { problem: string } {
  return checkAnswerAgainst<PaymentResult>(answerSchema, answer, 'pay');
}
