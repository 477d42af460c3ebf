/**
 * The runtime check of an order design (strategies/order/contract.ts), as every contract checks its designs:
 * one zod schema, so a design missing a member, naming an unknown pause point or check, declaring
 * a control without `caughtBy`, or knobs without `configure`, is refused when it loads, in one line.
 */
import { z } from 'zod';
import {
  ORDER_CHECKS,
  ORDER_OUTCOMES,
  ORDER_PAUSE_POINTS,
  ORDER_STATUSES,
  type OrderResult,
} from '../../../../strategies/order/contract.ts';
import {
  checkAnswerAgainst,
  declaredDesignShape,
  refinedDesignSchema,
} from '../../../registry/design-check.ts';
import { operation } from '../../../registry/strategy-module.ts';

const points = z.array(z.enum(ORDER_PAUSE_POINTS));

export const orderDesignSchema = refinedDesignSchema(
  z.object({
    ...declaredDesignShape('order', ORDER_CHECKS),
    pausePoints: z.strictObject({ order: points, release: points.optional(), expire: points.optional() }),
    setup: operation,
    order: operation,
    release: operation,
    expire: operation,
    status: operation,
    lines: operation,
    remaining: operation,
    backdate: operation.optional(),
    audit: operation,
  }),
);

const answerSchema = z.strictObject({
  outcome: z.enum(ORDER_OUTCOMES),
  status: z.enum(ORDER_STATUSES).optional(),
  sku: z.string().optional(),
});

/** What order answered, if the harness can record it: an outcome of the contract (a status, a sku). */
export function checkOrderAnswer(answer: unknown): { answer: OrderResult } | { problem: string } {
  return checkAnswerAgainst<OrderResult>(answerSchema, answer, 'order');
}
