/**
 * One case: a scenario against a strategy on fresh tables — set up, drive the clients, audit in one
 * snapshot, judge against the strategy's expectation, and drop the tables unless the case failed.
 */
import { OUTCOMES, type StrategyRef } from '../strategies/contract.ts';
import { type CaseResult, formatOutcomes, type OutcomeCounts } from './case-result.ts';
import type { ClientPool } from './client-pool.ts';
import type { RequestResult } from './client-task.ts';
import type { RunDatabase } from './database.ts';
import { oneLine } from './errors.ts';
import { auditInSnapshot, type Invariants, reconcile, violations } from './invariants.ts';
import { summarizeLatency } from './latency.ts';
import type { Scenario, ScenarioParams } from './scenarios/scenario.ts';

export interface CaseSpec {
  id: string;
  scenario: Scenario;
  ref: StrategyRef;
  params: ScenarioParams;
}

export interface CaseSettings {
  /** Keep a failed case's schema for inspection (the default; a passing case is always dropped). */
  keepFailed: boolean;
  /** How long any session may wait at a barrier before the case is declared stuck. */
  timeoutMs: number;
}

/** Counts per outcome, in the contract's order (HELD first, ERROR last) so reports read the same every run. */
function countOutcomes(answers: readonly RequestResult[]): OutcomeCounts {
  const counts: OutcomeCounts = {};
  for (const outcome of [...OUTCOMES, 'ERROR'] as const) {
    const n = answers.filter((a) => a.outcome === outcome).length;
    if (n > 0) counts[outcome] = n;
  }
  return counts;
}

function outcomeProblems(actual: OutcomeCounts, expected: OutcomeCounts): string[] {
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...keys]
    .filter((k) => (actual[k] ?? 0) !== (expected[k] ?? 0))
    .map((k) => `${k} ${actual[k] ?? 0}, expected ${expected[k] ?? 0}`);
}

function errorProblems(answers: readonly RequestResult[]): string[] {
  const errors = answers.filter((a) => a.outcome === 'ERROR');
  const first = errors[0];
  if (!first) return [];
  return [
    `${errors.length} request(s) failed, first: ${first.sqlstate ? `[${first.sqlstate}] ` : ''}${first.error}`,
  ];
}

function judge(
  spec: CaseSpec,
  outcomes: OutcomeCounts,
  invariants: Invariants,
  answers: readonly RequestResult[],
): { problems: string[]; boundary: string } {
  const broken = violations(invariants);
  if (spec.ref.strategy.expect === 'violate') {
    return broken.length > 0
      ? { problems: [], boundary: `caught: ${broken.join(', ')}` }
      : {
          problems: ['expected a violation, but every invariant held'],
          boundary: 'NOT caught: every invariant held',
        };
  }
  const problems = [
    ...broken,
    ...outcomeProblems(outcomes, spec.scenario.expectedOutcomes(spec.params)),
    ...errorProblems(answers),
  ];
  if (problems.length > 0) return { problems, boundary: `broke: ${problems.join('; ')}` };
  if (invariants.falseSoldOut > 0) {
    return {
      problems,
      boundary: `false sold-out: ${invariants.falseSoldOut} SOLD_OUT while ${invariants.total - invariants.active} unit(s) never sold`,
    };
  }
  return { problems, boundary: `held: ${formatOutcomes(outcomes)}; drift 0, oversold 0` };
}

export async function runCase(
  db: RunDatabase,
  pool: ClientPool,
  spec: CaseSpec,
  settings: CaseSettings,
): Promise<CaseResult> {
  const { strategy, moduleUrl } = spec.ref;
  const identity = {
    id: spec.id,
    scenario: spec.scenario.id,
    strategy: strategy.id,
    expect: strategy.expect,
  };
  if (strategy.scenarios && !strategy.scenarios.includes(spec.scenario.id)) {
    const reason = strategy.notApplicable ?? `${strategy.id} declares only: ${strategy.scenarios.join(', ')}`;
    return { ...identity, status: 'n/a', outcomes: {}, invariants: null, boundary: `n/a: ${reason}`, reason };
  }

  const schema = await db.createCaseSchema(`${spec.scenario.id}_${strategy.id}`);
  let keep = settings.keepFailed;
  let stage = 'setup';
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await strategy.setup(db.admin, spec.params.stock);
    const plan = spec.scenario.plan(spec.params);
    const holdAt = plan.holdAt && strategy.pausePoints.includes(plan.holdAt) ? plan.holdAt : undefined;
    stage = 'driving the clients';
    const clients = await pool.drive({
      strategyModuleUrl: moduleUrl,
      target: { connectionString: db.connectionString, schema },
      clients: plan.clients,
      timeoutMs: settings.timeoutMs,
      ...(holdAt ? { holdAt } : {}),
    });
    const answers = clients.flatMap((c) => c.results);
    stage = 'the audit';
    const invariants = reconcile(await auditInSnapshot(db.admin, strategy), answers);
    const outcomes = countOutcomes(answers);
    const { problems, boundary } = judge(spec, outcomes, invariants, answers);
    const status = problems.length === 0 ? 'pass' : 'fail';
    keep = status === 'fail' && settings.keepFailed;
    return {
      ...identity,
      status,
      outcomes,
      invariants,
      boundary,
      problems,
      latency: summarizeLatency(answers.map((a) => a.latencyMs)),
      ...(keep ? { keptSchema: schema } : {}),
    };
  } catch (error: unknown) {
    const problem = `${stage} failed: ${oneLine(error)}`;
    return {
      ...identity,
      status: 'fail',
      outcomes: {},
      invariants: null,
      boundary: problem,
      problems: [problem],
    };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    if (!keep) await db.dropCaseSchema(schema);
  }
}
