/**
 * A run: every selected contract's cases (each selected scenario against each selected design of the
 * contract), on one run database and the lanes beside it, DEFAULT_JOBS at a time within the server's
 * connection room (case-lanes.ts). The suite knows a contract only through its interface
 * (harness/contract/contract.ts): what work its cases are, where each may run, and how it runs.
 */

import type { ClusterSource } from '../cluster/cluster-source.ts';
import type { CaseSettings, RunSettings } from '../contract/case-settings.ts';
import type { CaseWork, Contract, ScenarioBase, Selection } from '../contract/contract.ts';
import { openRunDatabase, type RunDatabase } from '../database/database.ts';
import { DEFAULT_DURABILITY, type Durability } from '../database/durability.ts';
import { type Environment, readEnvironment } from '../database/environment.ts';
import { DEFAULT_POSTGRES, type PostgresMajor } from '../database/postgres-versions.ts';
import { checkConnectionRoom, HARNESS_CONNECTIONS } from '../database/preflight.ts';
import { wasInterrupted } from '../interrupted.ts';
import type { SourceEntry } from '../registry/source-manifest.ts';
import { unhandledErrorCount } from '../registry/unhandled-errors.ts';
import { type CaseResultBase, failsTheRun } from '../verdict/case-result.ts';
import { type Lanes, runInLanes } from './case-lanes.ts';
import { DEFAULT_JOBS } from './default-jobs.ts';
import { fatalCoverageGaps, runOk } from './run-ok.ts';
import { runSources } from './run-sources.ts';

// biome-ignore lint/suspicious/noExplicitAny: each contract has its own design, scenario and result types
export type AnyContract = Contract<any, any, any, any>;

/** One contract's share of a run: the contract, and the designs and scenarios of it the run drives. */
export interface SelectedContract {
  contract: AnyContract;
  selection: Selection<unknown, ScenarioBase, CaseResultBase>;
}

export interface SuiteOptions {
  contracts: readonly SelectedContract[];
  run: RunSettings;
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
  /** Specs: the listed permutation only, or every order of their steps. */
  permutations: 'listed' | 'all';
  /** Cases run side by side at most, each lane on a run database of its own (default DEFAULT_JOBS). */
  jobs?: number | undefined;
  /** Told every case's result as soon as it and every earlier one of the run are in. */
  onCase?: (contract: AnyContract, result: CaseResultBase) => void;
  /** How many cases (explorations among them) the run is about to run (a progress bar's total). */
  onPlan?: (items: number) => void;
  /**
   * Where the cluster scenarios' cases get their cluster (`run --cluster`), made for the run's major and
   * durability once a cluster scenario is selected; without it their cases are n/a.
   */
  cluster?: (run: { major: PostgresMajor; durability: Durability }) => Promise<ClusterSource>;
}

/** One contract's cases of a run, in the report's order, and the designs they ran. */
export interface ContractResults {
  contract: AnyContract;
  designs: readonly unknown[];
  cases: CaseResultBase[];
}

export interface SuiteResult {
  ok: boolean;
  environment: Environment;
  /**
   * Every design and scenario file the run ran, with its SHA-256 (the isolation-matrix chapter's manifest).
   */
  sources: SourceEntry[];
  /** Every selected contract's cases. */
  results: ContractResults[];
  /** What was kept for inspection and how to reach it. */
  kept: string[];
  /** Cases not covered for lack of an operation or pause point, when `requireCoverage` made them fatal. */
  uncovered: string[];
  /** Errors nothing handled during the run (unhandled-errors.ts): any fails it. */
  unhandledErrors: number;
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

/**
 * A case's kept tables stay, and keep its lane's database, as the run's own database is kept: when the case
 * fails the run, or with --keep. A control's exploration keeps the tables of the program that caught it
 * and passes: they go now, and its result names no kept schema (else a passing run would say it kept a
 * database, on an embedded server whose data goes).
 */
async function settleKeptTables<R extends CaseResultBase>(
  result: R,
  lane: CaseLane,
  settings: CaseSettings,
): Promise<R> {
  const schema = result.keptSchema;
  if (!schema) return result;
  if (settings.keepAll || failsTheRun(result)) {
    lane.kept = true;
    return result;
  }
  await lane.db.dropCaseSchema(schema);
  const { keptSchema: _, ...dropped } = result;
  return dropped as R;
}

/** One case's work, and the contract (its index in the options) it is a case of. */
interface Work {
  contract: number;
  work: CaseWork<CaseResultBase>;
}

/** The order the work starts in: by rank (CaseWork.rank), the report's order within a rank. */
export function startOrder(ranks: readonly number[]): number[] {
  return [...ranks.keys()].sort((a, b) => (ranks[a] ?? 0) - (ranks[b] ?? 0) || a - b);
}

/**
 * Every case of the run, DEFAULT_JOBS (or `jobs`) at a time within the server's connection room, in one
 * set of lanes: the run's own first, each lane opened on its server added to `onRunServer`. One list of
 * every contract's work, so that a case that mostly waits (on an external call, the database's clock, a
 * killed child) runs beside the others instead of after them.
 */
async function runWork(
  onRunServer: CaseLane[],
  options: SuiteOptions,
  settings: CaseSettings,
  items: readonly Work[],
  kept: string[],
): Promise<ContractResults[]> {
  const { admin } = onRunServer[0]?.db ?? {};
  if (!admin) throw new Error("runWork needs the run's own lane");
  // The largest case's connections beside the harness's own must fit the server, or nothing runs.
  const largest = Math.max(0, ...items.map((item) => item.work.placement.connections - HARNESS_CONNECTIONS));
  const room = await checkConnectionRoom(admin, largest);
  options.onPlan?.(items.length);
  const results = await runInLanes(caseLanes(onRunServer, kept), {
    items,
    startOrder: startOrder(items.map((item) => item.work.rank)),
    // A run database the suite cannot make another of (a black box has none) runs one case at a time.
    jobs: onRunServer[0]?.db.beside ? (options.jobs ?? DEFAULT_JOBS) : 1,
    room,
    placement: (item) => item.work.placement,
    run: async (item, lane) => {
      const began = performance.now();
      const result = await settleKeptTables(await item.work.run(lane.db, settings), lane, settings);
      return {
        contract: item.contract,
        result: { ...result, durationMs: Math.round(performance.now() - began) },
      };
    },
    onResult: (told) => {
      const selected = options.contracts[told.contract];
      if (selected) options.onCase?.(selected.contract, told.result);
    },
  });
  return options.contracts.map(({ contract, selection }, index) => ({
    contract,
    designs: selection.designs,
    cases: results.filter((r) => r.contract === index).map((r) => r.result),
  }));
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const db = await openRunDatabase({
    databaseUrl: options.databaseUrl,
    durability: options.durability,
    postgres: options.postgres,
  });
  const kept: string[] = [];
  const onRunServer: CaseLane[] = [{ db, kept: false }];
  let cluster: ClusterSource | undefined;
  try {
    cluster = await clusterFor(options);
    const environment = {
      ...(await readEnvironment(db.admin, options.databaseUrl ? 'url' : 'embedded', db.capabilities)),
      ...(cluster ? { cluster: cluster.environment() } : {}),
    };
    for (const { contract, selection } of options.contracts)
      await contract.designs.checkInstall?.(db.admin, selection.designs);
    const settings: CaseSettings = {
      keepFailed: true,
      keepAll: options.keep,
      timeoutMs: options.timeoutMs,
      permutations: options.permutations,
    };
    const run = { ...options.run, ...(cluster ? { cluster } : {}) };
    const plans = options.contracts.map(({ contract, selection }) => contract.plan(selection, run));
    try {
      const items = plans.flatMap((plan, contract) => plan.work.map((work) => ({ contract, work })));
      const results = await runWork(onRunServer, options, settings, items, kept);
      return judgedRun(options, results, environment, kept);
    } finally {
      await Promise.all(plans.map((plan) => plan.close()));
    }
  } finally {
    // Kept where a case kept its tables. The embedded server's data goes with the run's own database, so
    // there that is kept whenever a database beside it is; on a server given by URL each stands alone.
    const keptHere = db.ownServer ? onRunServer.some((lane) => lane.kept) : onRunServer[0]?.kept === true;
    kept.push(...(await db.close({ keep: options.keep || keptHere })));
    kept.push(...((await cluster?.close()) ?? []));
  }
}

/** The run's cluster source, when a scenario of a cluster is selected and the run has one. */
function clusterFor(options: SuiteOptions): Promise<ClusterSource | undefined> {
  const wanted = options.contracts.some(({ selection }) => selection.scenarios.some((s) => s.cluster));
  if (!options.cluster || !wanted) return Promise.resolve(undefined);
  return options.cluster({
    major: options.postgres ?? DEFAULT_POSTGRES,
    durability: options.durability ?? DEFAULT_DURABILITY,
  });
}

/** The run's result, judged by the one rule of a run (runOk). */
function judgedRun(
  options: SuiteOptions,
  results: ContractResults[],
  environment: Environment,
  kept: string[],
): SuiteResult {
  const cases = results.flatMap((r) => r.cases);
  const uncovered = fatalCoverageGaps(cases, options.requireCoverage);
  const unhandledErrors = unhandledErrorCount();
  const ok = runOk({ cases, uncovered, unhandledErrors });
  const sources = runSources(options.contracts);
  return { ok, environment, sources, results, kept, uncovered, unhandledErrors };
}
