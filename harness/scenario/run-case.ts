/**
 * One case: a scenario against a strategy on fresh tables — set up, drive the clients (or the
 * interleaving), audit in one snapshot, judge against the strategy's expectation, and drop the tables
 * unless the case failed.
 */
import {
  type IsolationLevel,
  OUTCOMES,
  type PausePoint,
  type ReserveRequest,
  type Strategy,
  type StrategyRef,
} from '../../strategies/contract.ts';
import { type BlackBox, NO_AUDIT } from '../blackbox/black-box.ts';
import type { RunDatabase } from '../database/database.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { RequestResult } from '../driver/client-task.ts';
import { summarizeLatency } from '../driver/latency.ts';
import { oneLine } from '../errors.ts';
import { allPermutations } from '../interleaving/all-permutations.ts';
import { InvalidPermutation, runPermutation } from '../interleaving/engine.ts';
import type { Permutation, Step, StepRecord } from '../interleaving/permutation.ts';
import { parseSpec } from '../interleaving/spec-parser.ts';
import type { AuditSummary, CaseResult, OutcomeCounts, PermutationReport } from '../verdict/case-result.ts';
import { readBack } from '../verdict/final-read.ts';
import { auditInSnapshot, computeReading, type LifecycleFacts } from '../verdict/invariants.ts';
import { errorProblems, expectationProblems, invariantProblems, judge } from '../verdict/verdict.ts';
import { PhaseRecorder } from './phases.ts';
import type { InterleavingScenario, Observations, Problem, Scenario, ScenarioParams } from './scenario.ts';
import { scriptContext } from './script-context.ts';

export interface CaseSpec {
  id: string;
  scenario: Scenario;
  ref: StrategyRef;
  params: ScenarioParams;
  /** The level every session of the case runs at (`run --isolation`); the server's default when absent. */
  isolation?: IsolationLevel;
  /**
   * The strategy is a black box driven from outside (`run --target`): no tables, no audit, the final read
   * over its API, and scenarios that need more than the API are n/a.
   */
  blackBox?: BlackBox;
}

export interface CaseSettings {
  /** Keep a failed case's schema for inspection (the default; a passing case is always dropped). */
  keepFailed: boolean;
  /** `run --keep`: keep every case's schema, passing ones too. */
  keepAll?: boolean;
  /** How long any session may wait at a barrier or stay blocked before the case is declared stuck. */
  timeoutMs: number;
  /**
   * Interleavings: `listed` runs the permutation the spec lists; `all` also runs every other order of the
   * steps that keeps each session's own order, each on fresh tables, and reports each one.
   */
  permutations: 'listed' | 'all';
}

/** Counts per outcome, in the contract's order (HELD first, ERROR last) so reports read the same every run. */
function countOutcomes(answers: readonly RequestResult[]): OutcomeCounts {
  const counts: OutcomeCounts = {};
  for (const outcome of [...OUTCOMES, 'ROLLED_BACK', 'INDETERMINATE', 'ERROR'] as const) {
    const n = answers.filter((a) => a.outcome === outcome).length;
    if (n > 0) counts[outcome] = n;
  }
  return counts;
}

function requestsOf(permutation: Permutation): ReserveRequest[] {
  return permutation.steps.flatMap((s) => ('reserve' in s ? [s.reserve] : []));
}

interface InterleavingFacts {
  answers: RequestResult[];
  lifecycle: LifecycleFacts;
  exercised: string[];
  /** What the lifecycle steps returned, summed: rows confirmed and released, units expiry gave back. */
  observed: Observations;
  phases: PhaseRecorder;
}

/**
 * What an interleaving's steps amount to: the final answer of each reserve (a paused step is not an
 * answer; its RESUME step carries it), the keys released and whether expiry ran.
 */
function interleavingFacts(steps: readonly StepRecord[], permutation: Permutation): InterleavingFacts {
  const byName = new Map(permutation.steps.map((s) => [s.name, s]));
  const pausable = new Map<string, Step>();
  const answers: RequestResult[] = [];
  const released = new Set<string>();
  const disabled = new Set<string>();
  let expireRan = false;
  const exercised = new Set<string>();
  const observed: Record<string, number> = {};
  const phases = new PhaseRecorder();
  const add = (name: string, n: number) => {
    observed[name] = (observed[name] ?? 0) + n;
  };
  const answer = (a: RequestResult) => {
    answers.push(a);
    phases.answered(answers.length - 1, answers.length);
  };
  for (const record of steps) {
    const defined = byName.get(record.step);
    if (!defined || 'sql' in defined) continue;
    const op = 'resume' in defined ? pausable.get(defined.session) : defined;
    if (!('resume' in defined)) pausable.set(defined.session, defined);
    if (!op || 'sql' in op || 'resume' in op) continue;
    const { result } = record;
    if (result.status === 'ok' && result.paused) continue;
    if ('operation' in op) {
      exercised.add(op.operation);
      const value = result.status === 'ok' ? result.value : undefined;
      phases.step(
        op.operation === 'disable' ? `disable ${op.requestKey ?? ''}`.trim() : op.operation,
        typeof value === 'number'
          ? { n: value, unit: 'units back' }
          : typeof value === 'boolean'
            ? { n: value ? 1 : 0, unit: 'moved' }
            : undefined,
      );
      if (op.operation === 'expire') {
        expireRan = true;
        add('unitsReturned', typeof value === 'number' ? value : 0);
      }
      if (op.operation === 'confirm') add('confirmed', value === true ? 1 : 0);
      if (op.operation === 'disable') {
        add('disabled', value === true ? 1 : 0);
        if (op.requestKey && value === true) disabled.add(op.requestKey);
      }
      if (op.operation === 'release') {
        add('released', value === true ? 1 : 0);
        if (op.requestKey && value === true) released.add(op.requestKey);
      }
      continue;
    }
    exercised.add('reserve');
    const request = op.reserve;
    const base = { requestKey: request.requestKey, user: request.user, sku: request.sku, latencyMs: 0 };
    if (result.status === 'error') {
      answer({
        ...base,
        outcome: 'ERROR',
        error: result.error,
        ...(result.sqlstate ? { sqlstate: result.sqlstate } : {}),
      });
    } else if (result.rolledBack) answer({ ...base, outcome: 'ROLLED_BACK' });
    else if (result.answer) answer({ ...base, ...result.answer });
  }
  return {
    answers,
    lifecycle: { released, expireRan, disabled },
    exercised: [...exercised],
    observed,
    phases,
  };
}

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

/** Why a strategy sits a scenario out by its own choice (a control outside the cases that catch it). */
function excludedReason(scenario: Scenario, strategy: Strategy): string | undefined {
  if (strategy.expect === 'violate') {
    if (strategy.caughtBy?.[scenario.id]) return undefined;
    const catching = Object.keys(strategy.caughtBy ?? {}).join(', ');
    return strategy.notApplicable ?? `negative control: caught in ${catching}`;
  }
  if (!strategy.scenarios || strategy.scenarios.includes(scenario.id)) return undefined;
  return strategy.notApplicable ?? `${strategy.id} takes part only in: ${strategy.scenarios.join(', ')}`;
}

function auditSummary(audit: Awaited<ReturnType<NonNullable<Strategy['audit']>>>): AuditSummary {
  return {
    skus: audit.skus,
    duplicateActive: audit.duplicateActive,
    duplicateKey: audit.duplicateKey,
    activeKeys: audit.activeKeys.length,
    endedKeys: audit.endedKeys.length,
  };
}

/** The observations in the case line, or their count where there are too many to read in one line. */
function observedNote(observations: Observations): string {
  const entries = Object.entries(observations);
  if (entries.length === 0) return '';
  if (entries.length > 6) return ` (${entries.length} observations; see the JSON)`;
  return ` (${entries.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')})`;
}

function blockedNote(steps: readonly StepRecord[]): string {
  const blocked = steps.filter((s) => s.blocked).map((s) => s.step);
  return blocked.length > 0 ? ` (blocked, then completed: ${blocked.join(', ')})` : ' (no step blocked)';
}

/** What one drive of a scenario produced, whatever its kind. */
interface Driven {
  sent: ReserveRequest[];
  answers: RequestResult[];
  lifecycle: LifecycleFacts;
  exercised: string[];
  pausePoints: string[];
  observations: Observations;
  steps?: StepRecord[];
  phases: PhaseRecorder;
}

/**
 * Who the case is; a strategy run at an isolation level it does not claim is measured, not judged (see
 * Strategy.isolation).
 */
function identityOf(spec: CaseSpec) {
  const { strategy } = spec.ref;
  const claimed = strategy.isolation ?? ['read-committed'];
  const expect = spec.isolation && !claimed.includes(spec.isolation) ? ('measure' as const) : strategy.expect;
  return {
    id: spec.id,
    scenario: spec.scenario.id,
    strategy: strategy.id,
    expect,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
  };
}

/** An ERROR the scenario's own fault caused is INDETERMINATE: sent, its fate unknown to the client. */
function withIndeterminate(answers: RequestResult[], faults: readonly string[] | undefined): RequestResult[] {
  if (!faults?.length) return answers;
  return answers.map((a) =>
    a.outcome === 'ERROR' && a.sqlstate && faults.includes(a.sqlstate)
      ? { ...a, outcome: 'INDETERMINATE' }
      : a,
  );
}

/** Retries by reason and errors by SQLSTATE over the case's answers; absent when there were none. */
function tally(answers: readonly RequestResult[]): {
  retries?: Record<string, number>;
  sqlstates?: Record<string, number>;
} {
  const retries: Record<string, number> = {};
  const sqlstates: Record<string, number> = {};
  for (const a of answers) {
    for (const [why, n] of Object.entries(a.retries ?? {})) retries[why] = (retries[why] ?? 0) + n;
    if (a.outcome === 'ERROR' || a.outcome === 'INDETERMINATE')
      sqlstates[a.sqlstate ?? 'other'] = (sqlstates[a.sqlstate ?? 'other'] ?? 0) + 1;
  }
  return {
    ...(Object.keys(retries).length > 0 ? { retries } : {}),
    ...(Object.keys(sqlstates).length > 0 ? { sqlstates } : {}),
  };
}

/** How many barrier timeouts a whole case may take before it is stuck (a phase that never answers). */
const CASE_DEADLINE_BARRIERS = 5;

/**
 * The case's work, or a one-line failure once `ms` have passed. Whatever still runs is cut off: every
 * other backend on the run database (only this case's sessions are there) is terminated, so its locks go
 * and the case's schema can be dropped.
 */
async function withinDeadline<T>(work: Promise<T>, ms: number, db: RunDatabase): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CaseDeadline(ms)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (error: unknown) {
    if (error instanceof CaseDeadline) {
      await db.admin
        .query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
        .catch(() => undefined);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

class CaseDeadline extends Error {
  constructor(ms: number) {
    super(`did not finish within ${ms / 1000} s: an operation never answered`);
  }
}

const NO_LIFECYCLE: LifecycleFacts = { released: new Set(), expireRan: false };

interface ParsedInterleaving {
  listed: Permutation;
  all: Permutation[];
}

const parsed = new Map<string, ParsedInterleaving>();

/** The scenario's isolation spec: the one permutation it lists, and every order of its steps. */
function interleavingOf(scenario: InterleavingScenario): ParsedInterleaving {
  const known = parsed.get(scenario.id);
  if (known) return known;
  const spec = parseSpec(scenario.spec, `scenarios/${scenario.id}.ts`);
  const [listed, ...more] = spec.permutations;
  if (!listed || more.length > 0) {
    throw new Error(`scenario ${scenario.id}: its spec must list exactly one permutation (the one judged)`);
  }
  const all = [
    ...allPermutations(spec.sessions.map((s) => ({ name: s.name, steps: s.steps.map((t) => t.step) }))),
  ];
  const entry = { listed, all };
  parsed.set(scenario.id, entry);
  return entry;
}

const orderOf = (permutation: Permutation) => permutation.steps.map((s) => s.name).join(' ');

function summaryOf(result: CaseResult, permutation: Permutation): PermutationReport {
  return {
    order: orderOf(permutation),
    status: result.status === 'n/a' ? 'broken' : result.status,
    blocked: 'steps' in result ? (result.steps ?? []).filter((s) => s.blocked).map((s) => s.step) : [],
    outcomes: result.outcomes,
    ...(result.status === 'fail' || result.status === 'broken' ? { problems: result.problems } : {}),
  };
}

/** One more order of the steps, on fresh tables; judged on everything but the listed order's blocking. */
async function permutationReport(
  db: RunDatabase,
  pool: ClientDriver,
  spec: CaseSpec,
  settings: CaseSettings,
  permutation: Permutation,
): Promise<PermutationReport> {
  try {
    return summaryOf(
      await measure(db, pool, spec, { ...settings, keepFailed: false, keepAll: false }, permutation, false),
      permutation,
    );
  } catch (error: unknown) {
    if (!(error instanceof InvalidPermutation)) throw error;
    return { order: orderOf(permutation), status: 'invalid', blocked: [error.waitingStep], outcomes: {} };
  }
}

/** The listed permutation's result, failed when any other order failed, with every order reported. */
function withPermutations(listed: CaseResult, permutations: PermutationReport[]): CaseResult {
  if (listed.status !== 'pass' && listed.status !== 'fail') return listed;
  const failed = permutations.filter((p) => p.status === 'fail' || p.status === 'broken');
  const problems = failed.map((p) => `permutation ${p.order}: ${(p.problems ?? []).join('; ')}`);
  const valid = permutations.filter((p) => p.status !== 'invalid').length;
  const note = ` (${valid} permutations, ${failed.length} failed, ${permutations.length - valid} invalid)`;
  if (problems.length === 0 || listed.expect === 'violate') {
    return { ...listed, boundary: `${listed.boundary}${note}`, permutations };
  }
  return {
    ...listed,
    status: 'fail',
    problems: [...listed.problems, ...problems],
    boundary: `${listed.boundary}${note}`,
    permutations,
  };
}

export async function runCase(
  db: RunDatabase,
  pool: ClientDriver,
  spec: CaseSpec,
  settings: CaseSettings,
): Promise<CaseResult> {
  const { strategy } = spec.ref;
  const { scenario } = spec;
  const identity = identityOf(spec);
  const excluded =
    excludedReason(scenario, strategy) ??
    spec.blackBox?.notApplicable(scenario) ??
    (scenario.crashesDatabase && !db.crashAndRestart
      ? 'the scenario crashes and restarts the database: the run has no way to restart a server given by URL'
      : undefined);
  const missing = excluded ? [] : missingFor(scenario, strategy);
  if (excluded || missing.length > 0) {
    const reason = excluded ?? `not covered: ${scenario.id} — ${missing.join('; ')}`;
    return {
      ...identity,
      status: 'n/a',
      outcomes: {},
      invariants: null,
      boundary: `n/a: ${reason}`,
      reason,
      coverage: { missing },
    };
  }

  if (scenario.kind !== 'interleaving') return measure(db, pool, spec, settings);
  const spec_ = interleavingOf(scenario);
  const listed = await measure(db, pool, spec, settings, spec_.listed);
  if (settings.permutations === 'listed' || listed.status === 'broken') return listed;
  const others: PermutationReport[] = [];
  for (const permutation of spec_.all) {
    if (orderOf(permutation) === orderOf(spec_.listed)) continue;
    others.push(await permutationReport(db, pool, spec, settings, permutation));
  }
  return withPermutations(listed, [summaryOf(listed, spec_.listed), ...others]);
}

async function measure(
  db: RunDatabase,
  pool: ClientDriver,
  spec: CaseSpec,
  settings: CaseSettings,
  permutation?: Permutation,
  judgeBlocking = true,
): Promise<CaseResult> {
  const { strategy } = spec.ref;
  const { scenario } = spec;
  const identity = identityOf(spec);
  const schema = await db.createCaseSchema(`${scenario.id}_${strategy.id}`);
  const connection = { connectionString: db.connectionString, schema };
  let keep = settings.keepFailed;
  let stage = 'setup';
  try {
    // A black box has no tables here: its setup loads the stock through its own way (reset, command).
    if (!spec.blackBox) await db.admin.query(`SET search_path TO ${schema}`);
    await strategy.setup(db.admin, spec.params.stock);
    // The crash under test is the clients'; the tables themselves must survive it, whatever
    // synchronous_commit the server runs with.
    if (scenario.crashesDatabase) await db.admin.query('CHECKPOINT');
    stage = 'driving the clients';
    const drove = await withinDeadline(
      drive(spec, db, pool, schema, settings, permutation),
      CASE_DEADLINE_BARRIERS * settings.timeoutMs,
      db,
    );
    const driven = { ...drove, answers: withIndeterminate(drove.answers, scenario.expect.faults) };
    stage = 'the final read';
    const keys = [...driven.sent.map((r) => r.requestKey), ...driven.answers.map((a) => a.requestKey)];
    const skus = spec.params.stock.map((s) => s.sku);
    const read = spec.blackBox
      ? await spec.blackBox.finalRead(keys, skus)
      : await readBack(connection, strategy, keys, skus);
    stage = 'the audit';
    const audit = await auditInSnapshot(db.admin, strategy);
    const reading = computeReading(
      { stock: spec.params.stock, sent: driven.sent, answers: driven.answers, lifecycle: driven.lifecycle },
      read,
      audit,
    );
    const outcomes = countOutcomes(driven.answers);
    const all: Problem[] = [
      ...invariantProblems(reading),
      ...expectationProblems(
        scenario,
        spec.params,
        { outcomes, invariants: reading.invariants, observed: driven.observations },
        strategy.id,
        judgeBlocking ? driven.steps : undefined,
      ),
      ...errorProblems(driven.answers, scenario.expect.faults),
    ];
    // A boundary this scenario measures (lost acknowledgements with synchronous_commit = off) is reported,
    // not judged.
    const measuredOnly = scenario.expect.boundaryChecks ?? [];
    const found = all.filter((p) => !measuredOnly.includes(p.check));
    const boundaryFound = all.filter((p) => measuredOnly.includes(p.check)).map((p) => p.message);
    const judged = judge(strategy, identity.expect, scenario.id, found, outcomes, reading);
    keep = settings.keepAll === true || (judged.status === 'fail' && settings.keepFailed);
    const { steps, observations } = driven;
    const note = [
      scenario.expect.boundaryNote?.(observations),
      ...(measuredOnly.length > 0
        ? [`measured in ${scenario.id}: ${boundaryFound.join(', ') || `0 (${measuredOnly.join(', ')})`}`]
        : []),
    ]
      .filter(Boolean)
      .join('; ');
    return {
      ...identity,
      status: judged.status,
      outcomes,
      phases: driven.phases.phases(driven.answers, countOutcomes),
      invariants: reading.invariants,
      ...(audit ? { audit: auditSummary(audit) } : { noAudit: NO_AUDIT }),
      finalRead: {
        statuses: reading.statusCounts,
        skus: reading.skus,
        ...(reading.indeterminate ? { indeterminate: reading.indeterminate } : {}),
      },
      coverage: { exercised: driven.exercised, pausePoints: driven.pausePoints },
      fired: judged.fired,
      ...tally(driven.answers),
      boundary: `${judged.boundary}${steps ? blockedNote(steps) : ''}${observedNote(observations)}`,
      problems: judged.problems,
      ...(steps ? { steps } : { latency: summarizeLatency(driven.answers.map((a) => a.latencyMs)) }),
      ...(spec.blackBox ? { http: spec.blackBox.takeFacts() } : {}),
      ...(Object.keys(observations).length > 0 ? { observations } : {}),
      ...(note ? { boundaryNote: note } : {}),
      ...(scenario.expect.headline ? { headline: true } : {}),
      ...(keep ? { keptSchema: schema } : {}),
    };
  } catch (error: unknown) {
    if (error instanceof InvalidPermutation) throw error;
    const problem = `${stage} failed: ${oneLine(error)}`;
    return {
      ...identity,
      status: 'broken',
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

async function drive(
  spec: CaseSpec,
  db: RunDatabase,
  pool: ClientDriver,
  schema: string,
  settings: CaseSettings,
  listed?: Permutation,
): Promise<Driven> {
  const { scenario } = spec;
  const { strategy, moduleUrl } = spec.ref;
  const final = ['status', 'remaining'];
  if (scenario.kind === 'script') {
    const script = scriptContext(db, pool, spec.ref, schema, spec.params, {
      timeoutMs: settings.timeoutMs,
      ...(spec.isolation ? { isolation: spec.isolation } : {}),
      ...(scenario.sessionSettings ? { settings: scenario.sessionSettings } : {}),
    });
    await scenario.run(spec.blackBox ? spec.blackBox.scriptContext(script.ctx, scenario) : script.ctx);
    return {
      sent: script.sent,
      answers: script.answers,
      lifecycle: script.lifecycle,
      exercised: [...script.exercised, ...final],
      pausePoints: [...script.pausePoints],
      observations: script.observations,
      phases: script.phases,
    };
  }
  if (scenario.kind === 'clients') {
    const plan = scenario.plan(spec.params);
    const holdAt =
      plan.holdAt && strategy.pausePoints.reserve?.includes(plan.holdAt) ? plan.holdAt : undefined;
    const declared = (point: PausePoint | undefined) =>
      !!point && !!strategy.pausePoints.reserve?.includes(point);
    // A lead held at its own point only makes sense while the others are held too: alone, it would keep
    // what they wait for.
    const scripts = plan.clients.map(({ holdAt: lead, ...client }) =>
      holdAt && declared(lead) ? { ...client, holdAt: lead } : client,
    );
    const clients = await pool.drive({
      strategyModuleUrl: moduleUrl,
      connection: {
        connectionString: db.connectionString,
        schema,
        ...(spec.isolation ? { isolation: spec.isolation } : {}),
      },
      clients: scripts,
      timeoutMs: settings.timeoutMs,
      ...(holdAt ? { holdAt } : {}),
    });
    const rollbacks = [...new Set(plan.clients.flatMap((c) => (c.rollbackAt ? [c.rollbackAt] : [])))];
    const answers = clients.flatMap((c) => c.results);
    const phases = new PhaseRecorder();
    phases.answered(0, answers.length);
    return {
      sent: plan.clients.flatMap((c) => c.requests),
      answers,
      lifecycle: NO_LIFECYCLE,
      exercised: ['reserve', ...final],
      pausePoints: [...(holdAt ? [`reserve:${holdAt}`] : []), ...rollbacks.map((p) => `reserve:${p}`)],
      observations: {},
      phases,
    };
  }
  const permutation = listed ?? interleavingOf(scenario).listed;
  const steps = await runPermutation(permutation, {
    connectionString: db.connectionString,
    schema,
    strategy,
    timeoutMs: settings.timeoutMs,
    rejectInvalid: permutation !== interleavingOf(scenario).listed,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
  });
  const facts = interleavingFacts(steps, permutation);
  const untils = permutation.steps.flatMap((s) =>
    'until' in s && s.until ? [`${'operation' in s ? s.operation : 'reserve'}:${s.until}`] : [],
  );
  return {
    sent: requestsOf(permutation),
    answers: facts.answers,
    lifecycle: facts.lifecycle,
    exercised: [...facts.exercised, ...final],
    pausePoints: [...new Set(untils)],
    observations: facts.observed,
    steps,
    phases: facts.phases,
  };
}
