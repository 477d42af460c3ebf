/**
 * The order contract's side of the explorer (contract-explore.ts): no sweep of its own — its exhaustive
 * scope (order-scope.ts) already races every pair of ORDERs at every pause point the design declares —
 * then random programs (order-arbitrary.ts), each written as an order spec (order-program.ts) and run as an
 * order spec case (run-order-case.ts) judged as if the design claimed to hold: a program that fails is a
 * finding. A finding's spec is replayed the same way from its file.
 */
import { refusedNeed } from '../../../case/applicability.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { ContractExplore, ExploreIdentity, ProgramRun } from '../../../contract/contract-explore.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import { orderSpecFile } from '../case/order-spec-file.ts';
import { runOrderCase } from '../case/run-order-case.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import type { OrderSpecScenario } from '../order-scenario.ts';
import { ORDER_SPEC_VERBS } from '../spec/order-verbs.ts';
import type { OrderCaseResult } from '../verdict/order-case-result.ts';
import { MAX_ORDER_SESSIONS, orderProgramArbitrary } from './order-arbitrary.ts';
import { type OrderProgram, orderSpecText } from './order-program.ts';
import { orderScope } from './order-scope.ts';

/** The spec as the explorer runs it: one order, its own, whatever `--permutations` says. */
function exploredScenario(text: string, file: string): OrderSpecScenario {
  const scenario = orderSpecFile(parseSpec(text, file, [ORDER_SPEC_VERBS]), text, file);
  return { ...scenario, id: 'explore', explored: true };
}

const listedOnly = (settings: CaseSettings): CaseSettings => ({ ...settings, permutations: 'listed' });

function runOf(result: OrderCaseResult, spec: string): ProgramRun<OrderCaseResult> {
  if (result.status === 'pass' || result.status === 'fail') return { kind: result.status, result, spec };
  if (result.problems?.some((p) => p.includes('invalid permutation:'))) return { kind: 'invalid', spec };
  return { kind: 'broken', result, spec };
}

async function runOrderProgram(
  db: RunDatabase,
  ref: OrderDesignRef,
  program: OrderProgram,
  settings: CaseSettings,
  header: readonly string[],
): Promise<ProgramRun<OrderCaseResult>> {
  const spec = orderSpecText(program, header);
  return runOf(
    await runOrderCase(db, ref, exploredScenario(spec, 'explored.spec'), listedOnly(settings)),
    spec,
  );
}

async function replayOrderSpec(
  db: RunDatabase,
  ref: OrderDesignRef,
  text: string,
  file: string,
  settings: CaseSettings,
  times: number,
): Promise<OrderCaseResult[]> {
  const scenario = exploredScenario(text, file);
  const results: OrderCaseResult[] = [];
  for (let i = 0; i < times; i++) results.push(await runOrderCase(db, ref, scenario, listedOnly(settings)));
  return results;
}

const identified = (identity: ExploreIdentity) => ({ ...identity, contract: 'order' as const });

export const ORDER_EXPLORE: ContractExplore<OrderDesignRef, OrderCaseResult, OrderProgram> = {
  connections: MAX_ORDER_SESSIONS,
  notExplored: (db, ref) => refusedNeed(ref.design.needs ?? [], db.capabilities),
  scope: orderScope,
  random: orderProgramArbitrary,
  specText: orderSpecText,
  run: runOrderProgram,
  replay: replayOrderSpec,
  skippedCase: (identity, reason) => ({
    ...identified(identity),
    status: 'n/a',
    outcomes: {},
    boundary: `n/a: ${reason}`,
    reason,
  }),
  brokenCase: (identity, problem) => ({
    ...identified(identity),
    status: 'broken',
    outcomes: {},
    boundary: problem,
    problems: [problem],
  }),
};
