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
import {
  count,
  explorationSchema,
  historySchema,
  observedSchema,
  outcomeCountsSchema,
  permutationSchema,
  stepSchemaOf,
} from '../../verdict/case-result-schema.ts';

const paymentAnswerSchema = z.strictObject({
  outcome: z.enum(PAYMENT_OUTCOMES),
  response: z
    .strictObject({ paymentId: z.string(), order: z.string(), amount: z.number(), currency: z.string() })
    .optional(),
});

const stepSchema = stepSchemaOf({ answer: paymentAnswerSchema, pausePoints: PAYMENT_PAUSE_POINTS });

/** A payment case (payment-case-result.ts): scenario × payment design, judged on the harness's reads. */
const paymentCaseSchema = z
  .strictObject({
    id: z.string().describe('`<scenario>/<design>`'),
    contract: z.literal('payment'),
    scenario: z.string(),
    strategy: z.string().describe('the payment design'),
    expect: z.enum(['hold', 'violate']),
    status: z.enum(['pass', 'fail', 'n/a', 'broken']),
    outcomes: outcomeCountsSchema.describe(
      'CREATED, REUSED, MISMATCH, … and ROLLED_BACK / INDETERMINATE for a killed worker',
    ),
    counts: z
      .strictObject({ payments: count, outbox: count })
      .optional()
      .describe("payment and outbox rows over the keys the case sent, from the harness's own reads"),
    observations: z.record(z.string(), observedSchema).optional(),
    history: historySchema.optional().describe("the case's pays and reads checked against the payment model"),
    steps: z.array(stepSchema).optional().describe("a payment spec's recorded steps"),
    permutations: z
      .array(permutationSchema)
      .optional()
      .describe('`run --permutations all`: every order of the spec, the listed one first'),
    fired: z.array(z.enum(PAYMENT_CHECKS)).optional(),
    lostAcknowledged: count
      .optional()
      .describe('a cluster case: acknowledged payments some member the cluster goes on with lacks'),
    copies: z
      .array(z.strictObject({ member: z.string(), role: z.enum(['survivor', 'discarded']), payments: count }))
      .optional()
      .describe('a cluster case: every member once writable, the authority first, with its payments'),
    boundaryNote: z.string().optional().describe('what the scenario measures rather than judges, as found'),
    exploration: explorationSchema.optional(),
    problems: z.array(z.string()).optional(),
    boundary: z.string(),
    reason: z.string().optional().describe('why the case is n/a'),
    durationMs: count.optional().describe('wall time of the whole case in ms'),
    postgres: z.string().optional().describe('the server version the case ran on, with several --postgres'),
    keptSchema: z
      .string()
      .optional()
      .describe("the schema holding a failed or broken case's tables (or every case's with --keep)"),
  })
  .describe('One payment case');

const paymentBoundaryRowSchema = z.strictObject({
  strategy: z.string(),
  expect: z.enum(['hold', 'violate']),
  guarantee: z.string(),
  shows: z.string().describe('what the scenarios held, or which check caught the control'),
  shownBy: z.string(),
});

/** The report's fields of the payment contract. */
export const PAYMENT_REPORT_SHAPE = {
  payments: z.array(paymentCaseSchema).describe("the payment contract's cases (docs/contract.md#payments)"),
  paymentBoundary: z.array(paymentBoundaryRowSchema).describe('one row per payment design'),
};

/** The payment contract's part of a report, as written. */
export type PaymentReport = z.infer<z.ZodObject<typeof PAYMENT_REPORT_SHAPE>>;
