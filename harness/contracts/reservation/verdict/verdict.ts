/**
 * What the reservation contract's verdict reads (judgement.ts judges every contract): the invariant counts
 * the harness computed, the scenario's expectations and the steps it saw blocked, each as problems named
 * by their check, and what a safe design showed when it held.
 */
import type { CheckName } from '../../../../strategies/contract.ts';
import type { StepRecord } from '../../../interleaving/permutation.ts';
import { formatOutcomes, type Observations, type OutcomeCounts } from '../../../verdict/case-result.ts';
import { exactly, notExercised, observedExactly } from '../../../verdict/judgement.ts';
import type { Expectations, Problem, ScenarioParams, Seen } from './expectations.ts';
import type { Reading } from './invariants.ts';

/** The safety counts that fired: what a safe design must never show. */
export function invariantProblems(reading: Reading): Problem[] {
  const inv = reading.invariants;
  const problems: Problem[] = [];
  if (inv.oversold > 0) problems.push({ check: 'oversold', message: `oversold ${inv.oversold}` });
  // Per sku, so that one sku's surplus cannot hide another's deficit.
  const drifting = reading.skus.filter((s) => s.drift !== 0);
  if (drifting.length > 0) {
    const detail =
      reading.skus.length > 1 ? ` (${drifting.map((s) => `${s.sku} ${s.drift}`).join(', ')})` : '';
    problems.push({ check: 'drift', message: `drift ${inv.drift}${detail}` });
  }
  const counts = ['duplicateActive', 'duplicateKey', 'lostAcknowledged', 'unacknowledgedActive'] as const;
  for (const check of counts)
    if ((inv[check] ?? 0) > 0) problems.push({ check, message: `${check} ${inv[check]}` });
  for (const line of reading.mismatches)
    problems.push({ check: 'auditMismatch', message: `auditMismatch: ${line}` });
  if (inv.reconciled === false) problems.push({ check: 'reconciled', message: 'books do not reconcile' });
  if (inv.ledgerReplayDrift) {
    problems.push({ check: 'ledgerReplayDrift', message: `ledgerReplayDrift ${inv.ledgerReplayDrift}` });
  }
  return problems;
}

/** The steps seen blocked must be exactly the ones the scenario expects for this strategy. */
function blockingProblems(
  expectedByStrategy: Readonly<Record<string, readonly string[]>> | undefined,
  strategyId: string,
  steps: readonly StepRecord[],
): Problem[] {
  const expected = expectedByStrategy?.[strategyId];
  if (!expected) return [];
  const seen = steps.filter((s) => s.blocked).map((s) => s.step);
  const same = seen.length === expected.length && expected.every((s) => seen.includes(s));
  if (same) return [];
  const list = (steps: readonly string[]) => (steps.length > 0 ? steps.join(', ') : 'none');
  return [{ check: 'blocking', message: `blocked: ${list(seen)}; expected ${list(expected)}` }];
}

/** Every expectation the scenario declares, evaluated against what the case showed. */
/** What the verdict reads of a scenario: how its cases are driven, and what it expects. */
export interface JudgedScenario {
  kind: 'clients' | 'script' | 'interleaving';
  expect: Expectations<Observations>;
}

export function expectationProblems(
  scenario: JudgedScenario,
  params: ScenarioParams,
  seen: Seen<Observations>,
  strategyId: string,
  steps: readonly StepRecord[] | undefined,
): Problem[] {
  const { expect } = scenario;
  // Another order of an interleaving than the listed one (no steps to judge blocking on).
  const exact = !(expect.orderDependent && scenario.kind === 'interleaving' && !steps);
  return [
    ...(expect.outcomes && exact ? exactly(expect.outcomes(params), seen.outcomes) : []),
    ...(expect.observations && exact ? observedExactly(expect.observations(params), seen.observed) : []),
    ...(expect.relations ? expect.relations(params, seen) : []),
    ...(steps ? blockingProblems(expect.blocking, strategyId, steps) : []),
    ...notExercised<CheckName>((exact ? expect.exercised?.(params, seen) : undefined) ?? []),
  ];
}

/** What a safe design showed when it held: its counts, or the units a SOLD_OUT left unsold. */
export function heldBoundary(reading: Reading, outcomes: OutcomeCounts): string {
  const inv = reading.invariants;
  if (inv.falseSoldOut > 0)
    return `false sold-out: ${inv.falseSoldOut} SOLD_OUT while ${inv.total - inv.active} unit(s) never sold`;
  return `held: ${formatOutcomes(outcomes)}; drift ${inv.drift}, oversold ${inv.oversold}`;
}
