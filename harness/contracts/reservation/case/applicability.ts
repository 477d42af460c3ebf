/**
 * Whether a case applies at all: a strategy sits a scenario out by its own choice, the server is older than
 * the design needs or refused a capability the case needs, a black box cannot run
 * what needs more than its API, a server given by URL cannot be crashed and restarted, and what the
 * strategy lacks for the scenario is a coverage gap. Each makes the case n/a, with the reason.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import { NO_RESTART, refusedNeed, sitsOutByChoice } from '../../../case/applicability.ts';
import { naCase } from '../../../case/unjudged-case.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { belowMinimum } from '../../../database/postgres-minimum.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { caseNeeds } from './capability-needs.ts';
import { type CaseSpec, identityOf } from './case-spec.ts';
import type { Scenario } from './scenario.ts';

/**
 * What the strategy lacks for the scenario: optional operations, and pause points an operation does not
 * declare. Each is a coverage gap, reported, never a failure.
 */
export function missingFor(scenario: Scenario, strategy: Strategy): string[] {
  const operations = (scenario.operations ?? []).filter((op) => !strategy[op]).map((op) => `no ${op}`);
  const unmet = (scenario.requires ?? [])
    .filter((need) => !need.anyOf.some((p) => strategy.pausePoints[need.operation]?.includes(p)))
    .filter((need) => need.operation === 'reserve' || strategy[need.operation]);
  // One clause per operation, however many of its points the scenario needs.
  const byOperation = new Map<string, string[]>();
  for (const need of unmet)
    byOperation.set(need.operation, [...(byOperation.get(need.operation) ?? []), need.anyOf.join(' or ')]);
  const points = [...byOperation].map(
    ([operation, needs]) => `${operation} declares no pause point ${needs.join(', nor ')}`,
  );
  return [...operations, ...points];
}

/** The case's n/a result, or undefined when the case applies and is to be driven. */
export function notApplicable(spec: CaseSpec, db: RunDatabase): CaseResult | undefined {
  const { strategy } = spec.ref;
  const { scenario } = spec;
  const excluded =
    sitsOutByChoice(strategy, scenario) ??
    scenario.sitsOut?.(strategy) ??
    belowMinimum(strategy, db.serverVersionNum) ??
    refusedNeed(caseNeeds(strategy, scenario, spec.isolation), db.capabilities) ??
    spec.blackBox?.notApplicable(scenario) ??
    (scenario.crashesDatabase && !db.crashAndRestart ? NO_RESTART : undefined);
  const missing = excluded ? [] : missingFor(scenario, strategy);
  if (!excluded && missing.length === 0) return undefined;
  const reason = excluded ?? `not covered: ${scenario.id} — ${missing.join('; ')}`;
  return { ...naCase(identityOf(spec), reason), invariants: null, coverage: { missing } };
}
