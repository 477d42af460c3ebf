/**
 * The order contract's verbs in a spec (spec-verbs.ts), whose words order-steps.ts reads:
 *
 *   ORDER <key> <user> <sku>:<qty>[,…] [TTL <ms>] [UNTIL <pause point>]
 *   RELEASE <key> [UNTIL <pause point>]   EXPIRE [UNTIL <pause point>]
 *   BACKDATE <key>…   STATUS <key>   LINES <key>   REMAINING <sku>
 *
 * Each calls the order design on the session's connection: ORDER, RELEASE and EXPIRE with a session
 * context whose pause stops at UNTIL as a RESERVE does; the reads and BACKDATE directly. Every step's
 * answer is the record's `answer`, in the shape the order history takes (order-history.ts): an order's is
 * checked against the contract first, and one outside it is an error naming it.
 */
import type { OrderDesign, OrderSessionContext } from '../../../../strategies/order/contract.ts';
import { Errors, oneLine } from '../../../errors.ts';
import { startPausable } from '../../../interleaving/call-steps.ts';
import type { ContractStep, Step } from '../../../interleaving/permutation.ts';
import type { Session } from '../../../interleaving/session.ts';
import type { SpecVerbs, StepEnvironment } from '../../../interleaving/spec-verbs.ts';
import type { StepWords } from '../../../interleaving/spec-words.ts';
import type { Outcome } from '../../../interleaving/step-outcome.ts';
import { checkOrderAnswer } from '../designs/order-module.ts';
import type { OrderAnswer } from '../order-history.ts';
import { ORDER_VERBS, type OrderStep, parseOrderStep } from '../order-steps.ts';

export const ORDER_CONTRACT = 'order';

/** A step of the order contract: what its words say (order-steps.ts), with the engine's fields. */
export interface OrderSpecStep extends ContractStep {
  order: OrderStep;
}

/** The step as an order step, or undefined for any other step. */
export function orderStepOf(step: Step | undefined): OrderSpecStep | undefined {
  return step && 'verb' in step && step.contract === ORDER_CONTRACT ? (step as OrderSpecStep) : undefined;
}

/** The key a step serves, for its record. */
function keyOf(step: OrderStep): string | undefined {
  if (step.verb === 'ORDER') return step.request.requestKey;
  if ('requestKey' in step) return step.requestKey;
  return undefined;
}

function parse(body: StepWords): ContractStep {
  let order: OrderStep;
  try {
    order = parseOrderStep(body.words.map((w) => w.text));
  } catch (error: unknown) {
    return body.fail(body.words[0]?.at ?? body.end, oneLine(error));
  }
  const requestKey = keyOf(order);
  return {
    contract: ORDER_CONTRACT,
    verb: order.verb,
    name: body.name,
    session: body.session,
    ...(requestKey ? { requestKey } : {}),
    ...('until' in order && order.until ? { until: order.until } : {}),
    order,
  } as OrderSpecStep;
}

/** The design's answer to the step, in the history's shape. */
async function call(design: OrderDesign, ctx: OrderSessionContext, step: OrderStep): Promise<OrderAnswer> {
  const { db } = ctx;
  switch (step.verb) {
    case 'ORDER': {
      const checked = checkOrderAnswer(await design.order(ctx, step.request));
      if ('problem' in checked) throw new Error(checked.problem);
      return checked.answer;
    }
    case 'RELEASE':
      return { moved: await design.release(ctx, step.requestKey) };
    case 'EXPIRE':
      return await design.expire(ctx);
    case 'BACKDATE':
      if (!design.backdate) throw Errors.badInput(`${design.id} has no backdate hook`);
      await design.backdate(db, step.requestKeys);
      return { done: true };
    case 'STATUS':
      return { status: await design.status(db, step.requestKey) };
    case 'LINES':
      return { lines: [...(await design.lines(db, step.requestKey))] };
    case 'REMAINING':
      return { remaining: await design.remaining(db, step.sku) };
  }
}

function start(session: Session, contractStep: ContractStep, env: StepEnvironment): Promise<Outcome> {
  const step = orderStepOf(contractStep);
  const design = env.contract?.design as OrderDesign | undefined;
  if (!step) throw new Error(`step ${contractStep.name} is not an order step`);
  if (!design) throw Errors.badInput(`step ${step.name} orders, but no order design was given`);
  return startPausable(session, step, step.requestKey ?? '', env, async (ctx) => ({
    status: 'ok',
    // The session context's pause points are the order contract's: the step's UNTIL was checked as one.
    answer: await call(design, ctx as unknown as OrderSessionContext, step.order),
  }));
}

export const ORDER_SPEC_VERBS: SpecVerbs = {
  contract: ORDER_CONTRACT,
  drives: 'orders (the order contract)',
  names: ORDER_VERBS,
  onANode: [],
  parse,
  start,
};
