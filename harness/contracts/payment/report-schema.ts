/**
 * The payment contract's fields of report.json (its cases, its boundary rows) as zod schemas, joined with
 * every other contract's in the report document (harness/report/report-schema.ts).
 */
import { z } from 'zod';
import {
  PAYMENT_CHECKS,
  PAYMENT_OUTCOMES,
  PAYMENT_PAUSE_POINTS,
} from '../../../strategies/payment/contract.ts';
import { count, observedSchema, stepSchemaOf } from '../../verdict/case-result-schema.ts';
import { boundaryRowSchema, contractCaseSchemaOf } from '../../verdict/contract-case-schema.ts';

const paymentAnswerSchema = z.strictObject({
  outcome: z.enum(PAYMENT_OUTCOMES),
  response: z
    .strictObject({ paymentId: z.string(), order: z.string(), amount: z.number(), currency: z.string() })
    .optional(),
});

const stepSchema = stepSchemaOf({ answer: paymentAnswerSchema, pausePoints: PAYMENT_PAUSE_POINTS });

/** A payment case (payment-case-result.ts): scenario × payment design, judged on the harness's reads. */
const paymentCaseSchema = contractCaseSchemaOf({
  contract: 'payment',
  noun: 'payment',
  outcomes: 'CREATED, REUSED, MISMATCH, … and ROLLED_BACK / INDETERMINATE for a killed worker',
  reads: {
    counts: z
      .strictObject({ payments: count, outbox: count })
      .optional()
      .describe("payment and outbox rows over the keys the case sent, from the harness's own reads"),
    observations: z.record(z.string(), observedSchema).optional(),
  },
  history: "the case's pays and reads checked against the payment model",
  step: stepSchema,
  steps: "a payment spec's recorded steps",
  checks: PAYMENT_CHECKS,
  figures: {
    lostAcknowledged: count
      .optional()
      .describe('a cluster case: acknowledged payments some member the cluster goes on with lacks'),
    copies: z
      .array(z.strictObject({ member: z.string(), role: z.enum(['survivor', 'discarded']), payments: count }))
      .optional()
      .describe('a cluster case: every member once writable, the authority first, with its payments'),
    boundaryNote: z.string().optional().describe('what the scenario measures rather than judges, as found'),
  },
});

/** The report's fields of the payment contract. */
export const PAYMENT_REPORT_SHAPE = {
  payments: z.array(paymentCaseSchema).describe("the payment contract's cases (docs/contract.md#payments)"),
  paymentBoundary: z.array(boundaryRowSchema).describe('one row per payment design'),
};

/** The payment contract's part of a report, as written. */
export type PaymentReport = z.infer<z.ZodObject<typeof PAYMENT_REPORT_SHAPE>>;
