/** A run: every selected scenario against every selected strategy, on one run database and one pool. */
import type { IsolationLevel, StrategyRef } from '../../strategies/contract.ts';
import { openRunDatabase, type RunDatabase } from '../database/database.ts';
import type { Durability } from '../database/durability.ts';
import { type Environment, readEnvironment } from '../database/environment.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import { checkConnectionRoom } from '../database/preflight.ts';
import { ClientPool } from '../driver/client-pool.ts';
import type { SourceEntry } from '../registry/source-manifest.ts';
import { checkSqlDesignsInstall } from '../registry/sql-design-check.ts';
import { type CaseResult, failsTheRun, isMeasured } from '../verdict/case-result.ts';
import { isCoverageGap } from '../verdict/coverage.ts';
import type { CaseSettings } from './case-spec.ts';
import { runCase } from './run-case.ts';
import { runSources } from './run-sources.ts';
import type { Scenario, ScenarioParams } from './scenario.ts';

export interface ScenarioOverrides {
  clients?: number;
  /** Replaces the total of the scenario's first sku. */
  stock?: number;
}

export interface SuiteOptions {
  strategies: StrategyRef[];
  scenarios: readonly Scenario[];
  overrides: ScenarioOverrides;
  repeat: number;
  databaseUrl?: string | undefined;
  /** The embedded server's major (`--postgres`; default 18); not with `databaseUrl`. */
  postgres?: PostgresMajor | undefined;
  /** Whether every commit waits for its WAL flush (default on). */
  durability?: Durability | undefined;
  /** Keep the run database even when every case passed. */
  keep: boolean;
  timeoutMs: number;
  /** A case n/a for lack of an optional operation or pause point fails the run. */
  requireCoverage: boolean;
  /** Interleavings: the listed permutation only, or every order of their steps. */
  permutations: 'listed' | 'all';
  /** Run every case once per level, every session at that default_transaction_isolation. */
  isolation?: readonly IsolationLevel[];
  /** Worker threads the clients are scheduled on (default: one per core); the nodes are the scenario's. */
  threads?: number;
  onCase?: (result: CaseResult) => void;
  /**
   * After the scenarios, each design explored (`explore/<id>`): the run command passes the explorer in,
   * so that the suite, which the explorer is built on, does not depend on it.
   */
  explore?: (db: RunDatabase, ref: StrategyRef, settings: CaseSettings) => Promise<CaseResult>;
}

export interface SuiteResult {
  ok: boolean;
  environment: Environment;
  /** Every design and scenario file the run ran, with its SHA-256 (seed 002's manifest). */
  sources: SourceEntry[];
  cases: CaseResult[];
  /** What was kept for inspection and how to reach it. */
  kept: string[];
  /** Cases not covered for lack of an operation or pause point, when `requireCoverage` made them fatal. */
  uncovered: string[];
}

/** Overrides apply to the many-client scenarios; an interleaving's inputs are part of its definition. */
export function paramsFor(scenario: Scenario, given: ScenarioOverrides): ScenarioParams {
  const overrides = scenario.kind === 'clients' ? given : {};
  const stock = scenario.input.stock.map((line, i) =>
    i === 0 && overrides.stock !== undefined ? { ...line, total: overrides.stock } : { ...line },
  );
  return {
    clients: overrides.clients ?? scenario.input.clients,
    stock,
    user: scenario.input.user,
    ttlMs: scenario.input.ttlMs,
    nodes: scenario.kind === 'interleaving' ? 1 : scenario.input.nodes,
  };
}

/**
 * Designs explored at once. A program mostly waits — on the database clock, on a session blocked behind
 * another, on the engine's looks — so several explorations share the cores well; each has its own
 * programs, tables and connections, and its findings do not depend on its neighbours (blocking is observed,
 * never timed).
 */
const EXPLORED_AT_ONCE = 4;

/**
 * `explore` for every design, EXPLORED_AT_ONCE at a time, each worker on a run database of its own beside
 * the run's (a case's search_path and deadline are its database's); the results in the designs' order.
 */
async function exploreSideBySide(
  db: RunDatabase,
  refs: readonly StrategyRef[],
  explore: (on: RunDatabase, ref: StrategyRef) => Promise<CaseResult>,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  let next = 0;
  const worker = async (on: RunDatabase) => {
    for (let i = next++; i < refs.length; i = next++) {
      const ref = refs[i];
      if (ref) results[i] = await explore(on, ref);
    }
  };
  const workers = Math.min(db.beside ? EXPLORED_AT_ONCE : 1, refs.length);
  const dbs = await Promise.all(Array.from({ length: workers }, () => db.beside?.() ?? db));
  try {
    await Promise.all(dbs.map(worker));
  } finally {
    for (const other of dbs) if (other !== db) await other.close({ keep: false });
  }
  return results;
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const db = await openRunDatabase({
    databaseUrl: options.databaseUrl,
    durability: options.durability,
    postgres: options.postgres,
  });
  const cases: CaseResult[] = [];
  const failed = () => cases.some(failsTheRun);
  const kept: string[] = [];
  try {
    const environment = await readEnvironment(
      db.admin,
      options.databaseUrl ? 'url' : 'embedded',
      db.capabilities,
    );
    await checkConnectionRoom(
      db.admin,
      Math.max(0, ...options.scenarios.map((s) => paramsFor(s, options.overrides).clients)),
    );
    await checkSqlDesignsInstall(db.admin, options.strategies);
    const pool = new ClientPool(options.threads);
    const settings: CaseSettings = {
      keepFailed: true,
      keepAll: options.keep,
      timeoutMs: options.timeoutMs,
      permutations: options.permutations,
    };
    const timed = async (work: Promise<CaseResult>) => {
      const began = performance.now();
      const result = { ...(await work), durationMs: Math.round(performance.now() - began) };
      cases.push(result);
      options.onCase?.(result);
    };
    try {
      for (const scenario of options.scenarios) {
        const params = paramsFor(scenario, options.overrides);
        for (const ref of options.strategies) {
          for (const isolation of options.isolation ?? [undefined]) {
            for (let repetition = 1; repetition <= options.repeat; repetition++) {
              const at = isolation ? `@${isolation}` : '';
              const id = `${scenario.id}/${ref.strategy.id}${at}${options.repeat > 1 ? `#${repetition}` : ''}`;
              const spec = { id, scenario, ref, params, ...(isolation ? { isolation } : {}) };
              await timed(runCase(db, pool, spec, settings));
            }
          }
        }
      }
      const { explore } = options;
      if (explore) {
        const explored = await exploreSideBySide(db, options.strategies, async (on, ref) => {
          const began = performance.now();
          const result = {
            ...(await explore(on, ref, settings)),
            durationMs: Math.round(performance.now() - began),
          };
          options.onCase?.(result);
          return result;
        });
        cases.push(...explored);
      }
    } finally {
      await pool.close();
    }
    const uncovered = options.requireCoverage
      ? cases.filter(isCoverageGap).map((c) => `${c.id}: ${c.reason}`)
      : [];
    // A run in which every case was n/a judged nothing: it does not pass (the same rule as --target's).
    const measuredAny = cases.some(isMeasured);
    const sources = runSources(options.strategies, options.scenarios);
    const ok = !failed() && uncovered.length === 0 && measuredAny;
    return { ok, environment, sources, cases, kept, uncovered };
  } finally {
    kept.push(...(await db.close({ keep: options.keep || failed() })));
  }
}
