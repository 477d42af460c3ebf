/** A run: every selected scenario against every selected strategy, on one run database and one pool. */
import type { IsolationLevel, StrategyRef } from '../../strategies/contract.ts';
import type { ClusterSource } from '../cluster/cluster-source.ts';
import { openRunDatabase, type RunDatabase } from '../database/database.ts';
import { DEFAULT_DURABILITY, type Durability } from '../database/durability.ts';
import { type Environment, readEnvironment } from '../database/environment.ts';
import { DEFAULT_POSTGRES, type PostgresMajor } from '../database/postgres-versions.ts';
import { checkConnectionRoom } from '../database/preflight.ts';
import { ClientPool } from '../driver/client-pool.ts';
import { wasInterrupted } from '../interrupted.ts';
import type { PaymentDesignRef } from '../registry/payment-registry.ts';
import type { SourceEntry } from '../registry/source-manifest.ts';
import { checkSqlDesignsInstall } from '../registry/sql-design-check.ts';
import { unhandledErrorCount } from '../registry/unhandled-errors.ts';
import { type CaseResult, failsTheRun, isMeasured } from '../verdict/case-result.ts';
import { isCoverageGap } from '../verdict/coverage.ts';
import {
  type PaymentCaseResult,
  paymentFailsTheRun,
  paymentMeasured,
} from '../verdict/payment-case-result.ts';
import { type Lanes, runInLanes } from './case-lanes.ts';
import type { CaseSettings, CaseSpec } from './case-spec.ts';
import type { PaymentScenario } from './payment/payment-scenario.ts';
import { runPaymentCase } from './payment/run-payment-case.ts';
import { runCase } from './run-case.ts';
import { runSources } from './run-sources.ts';
import type { Scenario, ScenarioParams } from './scenario.ts';
import { paymentItems, placementOf, type SuiteItem, startOrder } from './suite-work.ts';

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
  /** Cases run side by side at most, each lane on a run database of its own (default DEFAULT_JOBS). */
  jobs?: number | undefined;
  onCase?: (result: CaseResult) => void;
  /** How many cases, payment cases and explorations the run is about to run (a progress bar's total). */
  onPlan?: (items: number) => void;
  /**
   * The payment contract's scenarios, each crossed with the payment designs only (a reservation strategy
   * is no case of theirs), listed after the reservation scenarios' cases and run in the same lanes.
   */
  payments?: { designs: readonly PaymentDesignRef[]; scenarios: readonly PaymentScenario[] };
  onPaymentCase?: (result: PaymentCaseResult) => void;
  /**
   * Where the cluster scenarios' cases get their cluster (`run --cluster`), made for the run's major and
   * durability once a cluster scenario is selected; without it their cases are n/a.
   */
  cluster?: (run: { major: PostgresMajor; durability: Durability }) => Promise<ClusterSource>;
  /**
   * Each design explored (`explore/<id>`, listed after the scenarios' cases): the run command passes the
   * explorer in, so that the suite, which the explorer is built on, does not depend on it. `connections`:
   * what one of its programs opens at most.
   */
  explore?: {
    run(db: RunDatabase, ref: StrategyRef, settings: CaseSettings): Promise<CaseResult>;
    connections: number;
  };
}

export interface SuiteResult {
  ok: boolean;
  environment: Environment;
  /** Every design and scenario file the run ran, with its SHA-256 (seed 002's manifest). */
  sources: SourceEntry[];
  cases: CaseResult[];
  /** The payment contract's cases (scenario × payment design). */
  payments: PaymentCaseResult[];
  /** What was kept for inspection and how to reach it. */
  kept: string[];
  /** Cases not covered for lack of an operation or pause point, when `requireCoverage` made them fatal. */
  uncovered: string[];
  /** Errors nothing handled during the run (unhandled-errors.ts): any fails it. */
  unhandledErrors: number;
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
 * Cases run side by side by default. A case mostly waits — on a barrier, a blocked session, a child
 * process, a WAL flush, an external call — so several share two cores well (with 4 both cores sat idle for
 * stretches of a default run; more than 6 only queued); a fixed number, never the machine's
 * core count, so that which cases run beside which is the same on every machine (and a case's verdict is
 * the same alone: it is judged on its own tables, sessions and observed state).
 */
export const DEFAULT_JOBS = 6;

/** Every case of the run, in the order the report lists them. */
function caseSpecs(options: SuiteOptions, cluster: ClusterSource | undefined): CaseSpec[] {
  const specs: CaseSpec[] = [];
  for (const scenario of options.scenarios) {
    const params = paramsFor(scenario, options.overrides);
    for (const ref of options.strategies) {
      for (const isolation of options.isolation ?? [undefined]) {
        for (let repetition = 1; repetition <= options.repeat; repetition++) {
          const at = isolation ? `@${isolation}` : '';
          const id = `${scenario.id}/${ref.strategy.id}${at}${options.repeat > 1 ? `#${repetition}` : ''}`;
          const clustered = scenario.cluster && cluster ? { cluster } : {};
          specs.push({ id, scenario, ref, params, ...(isolation ? { isolation } : {}), ...clustered });
        }
      }
    }
  }
  return specs;
}

/** A lane cases run on: a run database of its own. */
interface CaseLane {
  db: RunDatabase;
  /** A case on it kept its tables: the lane's database is kept with them. */
  kept: boolean;
}

/** Opening a lane's database (Ctrl-C ends the run: no new database is made under its exit hooks). */
async function openLane(open: () => Promise<RunDatabase>): Promise<CaseLane> {
  if (wasInterrupted()) throw new Error('interrupted');
  return { db: await open(), kept: false };
}

/**
 * The run's own lane (the first of `onRunServer`), lanes beside it on databases of their own (added to
 * `onRunServer` as they open), and one on a server of its own.
 */
function caseLanes(onRunServer: CaseLane[], keptLines: string[]): Lanes<CaseLane> {
  const [first] = onRunServer;
  if (!first) throw new Error("caseLanes needs the run's own lane");
  const close = async (lane: CaseLane) => {
    keptLines.push(...(await lane.db.close({ keep: lane.kept })));
  };
  const { beside, ownServer } = first.db;
  const openBeside = async (open: () => Promise<RunDatabase>) => {
    const lane = await openLane(open);
    onRunServer.push(lane);
    return lane;
  };
  return {
    first,
    open: async () => (beside ? openBeside(beside) : first),
    close: async (lane) => (lane.db !== first.db ? close(lane) : undefined),
    ...(ownServer ? { own: { open: () => openLane(ownServer), close } } : {}),
  };
}

/** What a run's lanes gave back: the cases (explorations last) and the payment cases, each in order. */
interface WorkResults {
  cases: CaseResult[];
  payments: PaymentCaseResult[];
}

/**
 * A case's kept tables stay, and keep its lane's database, as the run's own database is kept: when the case
 * (a payment case too) fails the run, or with --keep. A control's exploration keeps the tables of the
 * program that caught it and passes: they go now, and its result names no kept schema (else a passing run
 * would say it kept a database, on an embedded server whose data goes).
 */
async function settleKeptTables<R extends CaseResult | PaymentCaseResult>(
  result: R,
  failsRun: boolean,
  lane: CaseLane,
  settings: CaseSettings,
): Promise<R> {
  const schema = 'keptSchema' in result ? result.keptSchema : undefined;
  if (!schema) return result;
  if (settings.keepAll || failsRun) {
    lane.kept = true;
    return result;
  }
  await lane.db.dropCaseSchema(schema);
  const { keptSchema: _, ...dropped } = result as R & { keptSchema?: string };
  return dropped as R;
}

/** One item of the run's work on a lane, its result told to the options' callbacks in the report's order. */
function workRunner(options: SuiteOptions, settings: CaseSettings, pool: ClientPool) {
  return async (item: SuiteItem, lane: CaseLane): Promise<WorkResult> => {
    const began = performance.now();
    const timed = <R>(result: R) => ({ ...result, durationMs: Math.round(performance.now() - began) });
    if (item.kind === 'payment') {
      const { ref, scenario, repetition } = item;
      const result = await runPaymentCase(lane.db, ref, scenario, settings, repetition);
      return {
        kind: 'payment',
        result: await settleKeptTables(result, paymentFailsTheRun(result), lane, settings),
      };
    }
    const result: CaseResult =
      item.kind === 'case'
        ? await runCase(lane.db, pool, item.spec, settings)
        : await (options.explore?.run(lane.db, item.ref, settings) ??
            Promise.reject(new Error('no explorer')));
    const settled = await settleKeptTables(result, failsTheRun(result), lane, settings);
    return { kind: 'case', result: timed(settled) };
  };
}

type WorkResult = { kind: 'case'; result: CaseResult } | { kind: 'payment'; result: PaymentCaseResult };

/**
 * Every case, payment case and exploration of the run, DEFAULT_JOBS (or `jobs`) at a time within the
 * server's connection room, in one set of lanes (suite-work.ts): the run's own first, each lane opened on
 * its server added to `onRunServer`.
 */
async function runWork(
  onRunServer: CaseLane[],
  options: SuiteOptions & { clusterSource?: ClusterSource | undefined },
  settings: CaseSettings,
  room: number,
  kept: string[],
): Promise<WorkResults> {
  const items: SuiteItem[] = [
    ...caseSpecs(options, options.clusterSource).map((spec) => ({ kind: 'case' as const, spec })),
    ...paymentItems(options.payments, options.repeat),
    ...(options.explore
      ? options.strategies.map((ref) => ({
          kind: 'explore' as const,
          ref,
          connections: options.explore?.connections ?? 0,
        }))
      : []),
  ];
  // One pool for every lane: its threads hold each node's memory, found by the case's schema; the cases'
  // drives take turns on it, their other work (sessions, children, waits, judging) runs side by side.
  const pool = new ClientPool(options.threads);
  options.onPlan?.(items.length);
  try {
    const results = await runInLanes(caseLanes(onRunServer, kept), {
      items,
      startOrder: startOrder(items),
      // A run database the suite cannot make another of (a black box has none) runs one case at a time.
      jobs: onRunServer[0]?.db.beside ? (options.jobs ?? DEFAULT_JOBS) : 1,
      room,
      placement: placementOf,
      run: workRunner(options, settings, pool),
      onResult: (told) =>
        told.kind === 'payment' ? options.onPaymentCase?.(told.result) : options.onCase?.(told.result),
    });
    return {
      cases: results.flatMap((r) => (r.kind === 'case' ? [r.result] : [])),
      payments: results.flatMap((r) => (r.kind === 'payment' ? [r.result] : [])),
    };
  } finally {
    await pool.close();
  }
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const db = await openRunDatabase({
    databaseUrl: options.databaseUrl,
    durability: options.durability,
    postgres: options.postgres,
  });
  const cases: CaseResult[] = [];
  const payments: PaymentCaseResult[] = [];
  const failed = () => cases.some(failsTheRun) || payments.some(paymentFailsTheRun);
  const kept: string[] = [];
  const onRunServer: CaseLane[] = [{ db, kept: false }];
  let clusterSource: ClusterSource | undefined;
  try {
    clusterSource = await clusterFor(options);
    const environment = {
      ...(await readEnvironment(db.admin, options.databaseUrl ? 'url' : 'embedded', db.capabilities)),
      ...(clusterSource ? { cluster: clusterSource.environment() } : {}),
    };
    const room = await checkConnectionRoom(
      db.admin,
      Math.max(0, ...options.scenarios.map((s) => paramsFor(s, options.overrides).clients)),
    );
    await checkSqlDesignsInstall(db.admin, options.strategies);
    const settings: CaseSettings = {
      keepFailed: true,
      keepAll: options.keep,
      timeoutMs: options.timeoutMs,
      permutations: options.permutations,
    };
    const done = await runWork(onRunServer, { ...options, clusterSource }, settings, room, kept);
    cases.push(...done.cases);
    payments.push(...done.payments);
    const uncovered = options.requireCoverage
      ? cases.filter(isCoverageGap).map((c) => `${c.id}: ${c.reason}`)
      : [];
    // A run in which every case was n/a judged nothing: it does not pass (the same rule as --target's).
    const measuredAny = cases.some(isMeasured) || payments.some(paymentMeasured);
    const sources = runSources(options.strategies, options.scenarios, options.payments);
    const unhandledErrors = unhandledErrorCount();
    const ok = !failed() && uncovered.length === 0 && measuredAny && unhandledErrors === 0;
    return { ok, environment, sources, cases, payments, kept, uncovered, unhandledErrors };
  } finally {
    // Kept where a case kept its tables. The embedded server's data goes with the run's own database, so
    // there that is kept whenever a database beside it is; on a server given by URL each stands alone.
    const keptHere = db.ownServer ? onRunServer.some((lane) => lane.kept) : onRunServer[0]?.kept === true;
    kept.push(...(await db.close({ keep: options.keep || keptHere })));
    kept.push(...((await clusterSource?.close()) ?? []));
  }
}

/** The run's cluster source, when a cluster scenario is selected and the run has one. */
function clusterFor(options: SuiteOptions): Promise<ClusterSource | undefined> {
  if (!options.cluster || !options.scenarios.some((s) => s.cluster)) return Promise.resolve(undefined);
  return options.cluster({
    major: options.postgres ?? DEFAULT_POSTGRES,
    durability: options.durability ?? DEFAULT_DURABILITY,
  });
}
