/**
 * One case: a scenario against a strategy on fresh tables — set up, drive the clients (or the
 * interleaving), audit in one snapshot, judge against the strategy's expectation, and drop the tables
 * unless the case failed.
 */
import { OUTCOMES, type StrategyRef } from '../strategies/contract.ts';
import { type CaseResult, formatOutcomes, type OutcomeCounts } from './case-result.ts';
import type { ClientPool } from './client-pool.ts';
import type { RequestResult } from './client-task.ts';
import type { RunDatabase } from './database.ts';
import { oneLine } from './errors.ts';
import { runPermutation } from './interleaving/engine.ts';
import type { StepRecord } from './interleaving/permutation.ts';
import { auditInSnapshot, type Invariants, reconcile, violations } from './invariants.ts';
import { summarizeLatency } from './latency.ts';
import type { Observations, Scenario, ScenarioParams } from './scenarios/scenario.ts';
import { scriptContext } from './script-context.ts';

export interface CaseSpec {
  id: string;
  scenario: Scenario;
  ref: StrategyRef;
  params: ScenarioParams;
}

export interface CaseSettings {
  /** Keep a failed case's schema for inspection (the default; a passing case is always dropped). */
  keepFailed: boolean;
  /** How long any session may wait at a barrier or stay blocked before the case is declared stuck. */
  timeoutMs: number;
}

/** Counts per outcome, in the contract's order (HELD first, ERROR last) so reports read the same every run. */
function countOutcomes(answers: readonly RequestResult[]): OutcomeCounts {
  const counts: OutcomeCounts = {};
  for (const outcome of [...OUTCOMES, 'ROLLED_BACK', 'ERROR'] as const) {
    const n = answers.filter((a) => a.outcome === outcome).length;
    if (n > 0) counts[outcome] = n;
  }
  return counts;
}

function errorProblems(answers: readonly RequestResult[]): string[] {
  const errors = answers.filter((a) => a.outcome === 'ERROR');
  const first = errors[0];
  if (!first) return [];
  return [
    `${errors.length} request(s) failed, first: ${first.sqlstate ? `[${first.sqlstate}] ` : ''}${first.error}`,
  ];
}

/** The final answer of each operation in an interleaving (a paused step is not an answer). */
function answersOf(steps: readonly StepRecord[]): RequestResult[] {
  return steps.flatMap((s): RequestResult[] => {
    if (!s.requestKey) return [];
    const { result } = s;
    const base = { requestKey: s.requestKey, latencyMs: 0 };
    if (result.status === 'error') {
      return [
        {
          ...base,
          outcome: 'ERROR',
          error: result.error,
          ...(result.sqlstate ? { sqlstate: result.sqlstate } : {}),
        },
      ];
    }
    if (result.rolledBack) return [{ ...base, outcome: 'ROLLED_BACK' }];
    return result.answer ? [{ ...base, ...result.answer }] : [];
  });
}

function judge(
  spec: CaseSpec,
  outcomes: OutcomeCounts,
  invariants: Invariants,
  answers: readonly RequestResult[],
  observations: Observations,
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
    ...spec.scenario.check(spec.params, outcomes, invariants, observations),
    ...errorProblems(answers),
  ];
  const unique = [...new Set(problems)];
  if (unique.length > 0) return { problems: unique, boundary: `broke: ${unique.join('; ')}` };
  if (invariants.falseSoldOut > 0) {
    return {
      problems: [],
      boundary: `false sold-out: ${invariants.falseSoldOut} SOLD_OUT while ${invariants.total - invariants.active} unit(s) never sold`,
    };
  }
  return { problems: [], boundary: `held: ${formatOutcomes(outcomes)}; drift 0, oversold 0` };
}

function observedNote(observations: Observations): string {
  const entries = Object.entries(observations);
  return entries.length > 0 ? ` (${entries.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')})` : '';
}

function blockedNote(steps: readonly StepRecord[]): string {
  const blocked = steps.filter((s) => s.blocked).map((s) => s.step);
  return blocked.length > 0 ? ` (blocked, then completed: ${blocked.join(', ')})` : ' (no step blocked)';
}

export async function runCase(
  db: RunDatabase,
  pool: ClientPool,
  spec: CaseSpec,
  settings: CaseSettings,
): Promise<CaseResult> {
  const { strategy, moduleUrl } = spec.ref;
  const { scenario } = spec;
  const identity = { id: spec.id, scenario: scenario.id, strategy: strategy.id, expect: strategy.expect };
  const missing = [
    ...(scenario.requires ?? [])
      .filter((p) => !strategy.pausePoints.includes(p))
      .map((p) => `pause point ${p}`),
    ...(scenario.kind === 'script' ? scenario.operations.filter((op) => !strategy[op]) : []),
  ];
  const excluded = strategy.scenarios && !strategy.scenarios.includes(scenario.id);
  if (excluded || missing.length > 0) {
    const reason = excluded
      ? (strategy.notApplicable ?? `${strategy.id} declares only: ${strategy.scenarios?.join(', ')}`)
      : `needs ${missing.join(', ')}, which ${strategy.id} does not implement`;
    return { ...identity, status: 'n/a', outcomes: {}, invariants: null, boundary: `n/a: ${reason}`, reason };
  }

  const schema = await db.createCaseSchema(`${scenario.id}_${strategy.id}`);
  let keep = settings.keepFailed;
  let stage = 'setup';
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await strategy.setup(db.admin, spec.params.stock);
    stage = 'driving the clients';
    let answers: RequestResult[];
    let steps: StepRecord[] | undefined;
    let observations: Observations = {};
    if (scenario.kind === 'script') {
      const script = scriptContext(db, pool, spec.ref, schema, spec.params, settings.timeoutMs);
      await scenario.run(script.ctx);
      answers = script.answers;
      observations = script.observations;
    } else if (scenario.kind === 'clients') {
      const plan = scenario.plan(spec.params);
      const holdAt = plan.holdAt && strategy.pausePoints.includes(plan.holdAt) ? plan.holdAt : undefined;
      const clients = await pool.drive({
        strategyModuleUrl: moduleUrl,
        target: { connectionString: db.connectionString, schema },
        clients: plan.clients,
        timeoutMs: settings.timeoutMs,
        ...(holdAt ? { holdAt } : {}),
      });
      answers = clients.flatMap((c) => c.results);
    } else {
      steps = await runPermutation(scenario.permutation(spec.params), {
        connectionString: db.connectionString,
        schema,
        strategy,
        timeoutMs: settings.timeoutMs,
      });
      answers = answersOf(steps);
    }
    stage = 'the audit';
    const invariants = reconcile(await auditInSnapshot(db.admin, strategy), answers);
    const outcomes = countOutcomes(answers);
    const judged = judge(spec, outcomes, invariants, answers, observations);
    const status = judged.problems.length === 0 ? 'pass' : 'fail';
    keep = status === 'fail' && settings.keepFailed;
    return {
      ...identity,
      status,
      outcomes,
      invariants,
      boundary: `${judged.boundary}${steps ? blockedNote(steps) : ''}${observedNote(observations)}`,
      problems: judged.problems,
      ...(steps ? { steps } : { latency: summarizeLatency(answers.map((a) => a.latencyMs)) }),
      ...(Object.keys(observations).length > 0 ? { observations } : {}),
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
