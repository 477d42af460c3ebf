/**
 * The order contract's side of the explorer (contract-explore.ts): no sweep of its own — its exhaustive
 * scope (order-scope.ts) already races every pair of ORDERs at every pause point the design declares —
 * then random programs (order-arbitrary.ts), each written as an order spec (order-program.ts) and run as an
 * order spec case (run-order-case.ts) judged as if the design claimed to hold: a program that fails is a
 * finding. A finding's spec is replayed the same way from its file. A control caught only where no
 * program can go (`beyondExplorer`: releases and expiries) is n/a here, with that reason.
 */
import type { OrderDesign } from '../../../../strategies/order/contract.ts';
import type { ContractExplore } from '../../../contract/contract-explore.ts';
import { exploreCasesOf, specExplore } from '../../../explore/spec-program.ts';
import { ORDER_SCENARIOS } from '../case/order-scenarios.ts';
import { readOrderSpec } from '../case/order-spec-file.ts';
import { runOrderCase } from '../case/run-order-case.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import type { OrderCaseResult } from '../verdict/order-case-result.ts';
import { MAX_ORDER_SESSIONS, orderProgramArbitrary } from './order-arbitrary.ts';
import { type OrderProgram, orderSpecText } from './order-program.ts';
import { orderScope } from './order-scope.ts';

/** A control caught only in scenarios no explored program can be (`beyondExplorer`): why, else undefined. */
function outOfReach(design: OrderDesign): string | undefined {
  if (design.expect !== 'violate' || !design.caughtBy) return undefined;
  const reasons = Object.keys(design.caughtBy).map((id) => {
    const why = ORDER_SCENARIOS.find((s) => s.id === id)?.beyondExplorer;
    return why ? `${id}: ${why}` : undefined;
  });
  if (reasons.length === 0 || reasons.some((r) => r === undefined)) return undefined;
  return `out of the explorer's reach: the bug shows only in scenarios no explored program can be (${reasons.join('; ')})`;
}

const ORDER_SPEC_EXPLORE = specExplore({
  connections: MAX_ORDER_SESSIONS,
  scope: orderScope,
  random: orderProgramArbitrary,
  parse: readOrderSpec,
  specText: orderSpecText,
  runCase: runOrderCase,
});

export const ORDER_EXPLORE: ContractExplore<OrderDesignRef, OrderCaseResult, OrderProgram> = {
  ...ORDER_SPEC_EXPLORE,
  notExplored: (db, ref, reach) => outOfReach(ref.design) ?? ORDER_SPEC_EXPLORE.notExplored(db, ref, reach),
  ...exploreCasesOf('order'),
};
