/**
 * The verdict of one case, from what the harness observed: the invariant counts it computed, the
 * scenario's expectations, the steps it saw blocked and the requests that failed. A safe design passes
 * when no check fires; a negative control passes only when one of the checks it names in `caughtBy` fires
 * (another check firing means the scenario no longer shows what the control exists to show).
 */
import type { CheckName, Strategy } from '../../strategies/contract.ts';
import type { RequestResult } from '../driver/client-task.ts';
import type { StepRecord } from '../interleaving/permutation.ts';
import { formatOutcomes, type Observations, type OutcomeCounts } from './case-result.ts';
import {
  type Expectations,
  exactly,
  observedExactly,
  type Problem,
  type ScenarioParams,
  type Seen,
} from './expectations.ts';
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
    ...((exact ? expect.exercised?.(params, seen) : undefined) ?? []).map(
      (line): Problem => ({
        check: 'exercised',
        message: `not exercised: ${line}`,
      }),
    ),
  ];
}

/** Requests that failed, except those whose SQLSTATE the scenario causes on purpose (`expect.faults`). */
/** A failure that is no request's answer: a lifecycle step or a read of an interleaving that threw. */
export interface OperationFailure {
  sqlstate?: string | undefined;
  error: string;
}

export function errorProblems(
  answers: readonly (RequestResult | OperationFailure)[],
  faults: readonly string[] = [],
): Problem[] {
  const failed = (a: RequestResult | OperationFailure) => !('outcome' in a) || a.outcome === 'ERROR';
  const errors = answers.filter((a) => failed(a) && !(a.sqlstate && faults.includes(a.sqlstate)));
  const first = errors[0];
  if (!first) return [];
  const why = `${first.sqlstate ? `[${first.sqlstate}] ` : ''}${first.error ?? 'unknown error'}`;
  return [{ check: 'errors', message: `${errors.length} operation(s) failed, first: ${why}` }];
}

export interface Judgement {
  status: 'pass' | 'fail';
  problems: string[];
  boundary: string;
  /** Every check that fired, whatever the expectation. */
  fired: CheckName[];
}

export function judge(
  strategy: Strategy,
  expect: Strategy['expect'] | 'measure',
  scenarioId: string,
  found: readonly Problem[],
  outcomes: OutcomeCounts,
  reading: Reading,
): Judgement {
  const fired = [...new Set(found.map((p) => p.check))];
  const messages = [...new Set(found.map((p) => p.message))];
  if (expect === 'violate') {
    const wanted = strategy.caughtBy?.[scenarioId] ?? [];
    const caught = found.filter((p) => wanted.includes(p.check));
    if (caught.length > 0) {
      return {
        status: 'pass',
        problems: [],
        boundary: `caught: ${caught.map((p) => p.message).join(', ')}`,
        fired,
      };
    }
    if (fired.length > 0) {
      const problem = `caught for the wrong reason: ${fired.join(', ')} fired, but ${strategy.id} must be caught by ${wanted.join(' or ')} here`;
      return {
        status: 'fail',
        problems: [problem, ...messages],
        boundary: `${problem} (${messages.join('; ')})`,
        fired,
      };
    }
    return {
      status: 'fail',
      problems: [`expected ${wanted.join(' or ')} to catch it, but every check held`],
      boundary: 'NOT caught: every check held',
      fired,
    };
  }
  if (messages.length > 0)
    return { status: 'fail', problems: messages, boundary: `broke: ${messages.join('; ')}`, fired };
  const inv = reading.invariants;
  if (inv.falseSoldOut > 0) {
    return {
      status: 'pass',
      problems: [],
      boundary: `false sold-out: ${inv.falseSoldOut} SOLD_OUT while ${inv.total - inv.active} unit(s) never sold`,
      fired,
    };
  }
  return {
    status: 'pass',
    problems: [],
    boundary: `held: ${formatOutcomes(outcomes)}; drift ${inv.drift}, oversold ${inv.oversold}`,
    fired,
  };
}
