/**
 * The order contract's side of the explorer (contract-explore.ts): no sweep of its own — its exhaustive
 * scope (order-scope.ts) already races every pair of ORDERs at every pause point the design declares —
 * then random programs (order-arbitrary.ts), each written as an order spec (order-program.ts) and run as an
 * order spec case (run-order-case.ts) judged as if the design claimed to hold: a program that fails is a
 * finding. A finding's spec is replayed the same way from its file. A control caught only where no
 * program can go (`beyondExplorer`: releases and expiries) is n/a here, with that reason.
 */

import type { OrderDesign } from '../../../../strategies/order/contract.ts';
import { refusedNeed } from '../../../case/applicability.ts';
import type { ContractExplore } from '../../../contract/contract-explore.ts';
import { exploreCasesOf, specProgramRunner } from '../../../explore/spec-program.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import { ORDER_SCENARIOS } from '../case/order-scenarios.ts';
import { orderSpecFile } from '../case/order-spec-file.ts';
import { runOrderCase } from '../case/run-order-case.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import type { OrderSpecScenario } from '../order-scenario.ts';
import { ORDER_SPEC_VERBS } from '../spec/order-verbs.ts';
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

const ORDER_PROGRAMS = specProgramRunner({
  parse: (text: string, file: string): OrderSpecScenario =>
    orderSpecFile(parseSpec(text, file, [ORDER_SPEC_VERBS]), text, file),
  specText: orderSpecText,
  runCase: runOrderCase,
});

export const ORDER_EXPLORE: ContractExplore<OrderDesignRef, OrderCaseResult, OrderProgram> = {
  connections: MAX_ORDER_SESSIONS,
  notExplored: (db, ref) => outOfReach(ref.design) ?? refusedNeed(ref.design.needs ?? [], db.capabilities),
  scope: orderScope,
  random: orderProgramArbitrary,
  specText: orderSpecText,
  run: ORDER_PROGRAMS.run,
  replay: ORDER_PROGRAMS.replay,
  ...exploreCasesOf('order'),
};
