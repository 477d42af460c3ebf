/**
 * The order contract's side of the explorer (contract-explore.ts): no sweep of its own — its exhaustive
 * scope (order-scope.ts) already races every pair of ORDERs at every pause point the design declares —
 * then random programs (order-arbitrary.ts), each written as an order spec (order-program.ts) and run as an
 * order spec case (run-order-case.ts) judged as if the design claimed to hold: a program that fails is a
 * finding. A finding's spec is replayed the same way from its file.
 */
import type { ContractExplore } from '../../../contract/contract-explore.ts';
import { exploreCasesOf, specExplore } from '../../../explore/spec-program.ts';
import { readOrderSpec } from '../case/order-spec-file.ts';
import { runOrderCase } from '../case/run-order-case.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import type { OrderCaseResult } from '../verdict/order-case-result.ts';
import { MAX_ORDER_SESSIONS, orderProgramArbitrary } from './order-arbitrary.ts';
import { type OrderProgram, orderSpecText } from './order-program.ts';
import { orderScope } from './order-scope.ts';

export const ORDER_EXPLORE: ContractExplore<OrderDesignRef, OrderCaseResult, OrderProgram> = {
  ...specExplore({
    connections: MAX_ORDER_SESSIONS,
    scope: orderScope,
    random: orderProgramArbitrary,
    parse: readOrderSpec,
    specText: orderSpecText,
    runCase: runOrderCase,
  }),
  ...exploreCasesOf('order'),
};
