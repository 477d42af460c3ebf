/**
 * The order contract's fields of report.json (its cases, its boundary rows) as zod schemas, joined with
 * every other contract's in the report document (harness/report/report-schema.ts).
 */
import { z } from 'zod';
import {
  ORDER_CHECKS,
  ORDER_OUTCOMES,
  ORDER_PAUSE_POINTS,
  ORDER_STATUSES,
} from '../../../strategies/order/contract.ts';
import { count, stepSchemaOf } from '../../verdict/case-result-schema.ts';
import { boundaryRowSchema, contractCaseSchemaOf } from '../../verdict/contract-case-schema.ts';

const lineSchema = z.strictObject({ sku: z.string(), qty: z.number() });

/** Every answer an order step records (order-history.ts): an order's, a release's, an expiry's, a read's. */
const orderAnswerSchema = z.union([
  z.strictObject({
    outcome: z.enum(ORDER_OUTCOMES),
    status: z.enum(ORDER_STATUSES).optional(),
    sku: z.string().optional(),
  }),
  z.strictObject({ moved: z.boolean() }),
  z.strictObject({ orders: count, units: count }),
  z.strictObject({ status: z.enum([...ORDER_STATUSES, 'NOT_FOUND']) }),
  z.strictObject({ remaining: z.number() }),
  z.strictObject({ lines: z.array(lineSchema) }),
  z.strictObject({ done: z.literal(true) }),
]);

const stepSchema = stepSchemaOf({ answer: orderAnswerSchema, pausePoints: ORDER_PAUSE_POINTS });

/** An order case (order-case-result.ts): scenario × order design, judged on the harness's reads. */
const orderCaseSchema = contractCaseSchemaOf({
  contract: 'order',
  noun: 'order',
  outcomes:
    'HELD, SOLD_OUT, REPLAY, … of the orders, and ROLLED_BACK / INDETERMINATE / ERROR for one cut off',
  reads: {
    stock: z
      .record(z.string(), z.strictObject({ total: count, remaining: z.number(), held: z.number() }))
      .optional()
      .describe(
        "per sku: its stock, what remaining read at the end, what its HELD orders hold (the harness's reads)",
      ),
  },
  history: "the case's calls and final read checked against the order model",
  step: stepSchema,
  steps: "an order spec's recorded steps",
  checks: ORDER_CHECKS,
  figures: {},
});

/** The report's fields of the order contract. */
export const ORDER_REPORT_SHAPE = {
  orders: z.array(orderCaseSchema).describe('the order contract\'s cases (docs/contract.md, "Orders")'),
  orderBoundary: z.array(boundaryRowSchema).describe('one row per order design'),
};

/** The order contract's part of a report, as written. */
export type OrderReport = z.infer<z.ZodObject<typeof ORDER_REPORT_SHAPE>>;
