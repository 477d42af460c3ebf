import type {
  CheckName,
  NodeIdentity,
  PausePoint,
  PausingOperation,
  ReserveRequest,
  SessionContext,
  StockLine,
  Strategy,
} from '../../../../strategies/contract.ts';
import type { ClusterNeeds } from '../../../cluster/cluster.ts';

import type { CommitAckProxy } from '../../../crash/commit-ack-proxy.ts';
import type { CrashedChild } from '../../../crash/crash-runner.ts';
import type { AdmissionSettings } from '../../../gate/admission.ts';
import type { Observations, Observed, OutcomeCounts } from '../../../verdict/case-result.ts';
import type { ClientScript, RequestResult } from '../driver/client-task.ts';
import type { ReservationService } from '../http/reservation-service.ts';
import type { Expectations, Problem, ScenarioParams } from '../verdict/expectations.ts';
import type { Invariants } from '../verdict/invariants.ts';
import type { ClusterContext } from './cluster-context.ts';
import type { CrashOperation } from './crash-operation.ts';

export { exactly, observedExactly } from '../../../verdict/judgement.ts';
export {
  type Expectations,
  figure,
  type Problem,
  type ScenarioParams,
  type Seen,
} from '../verdict/expectations.ts';

/**
 * A scenario's inputs (the flash-sale lab's teaching scale: 40 units, 150 simultaneous requests, sku-lab-01,
 * users like user-0042). `--clients` and `--stock` override `clients` and the first sku's total of the
 * many-client scenarios; an interleaving's inputs are part of its definition.
 */
export interface ScenarioInput {
  clients: number;
  stock: { sku: string; total: number }[];
  user: string;
  ttlMs: number;
}

/**
 * The inputs of a scenario that drives clients (a clients or a script scenario), with the nodes they talk
 * to: client i of a reserve talks to node i mod `nodes` (unless a script binds it to one), on any machine;
 * the worker threads only schedule the nodes. A count that does not divide the stock puts a per-node
 * design's remainder under test.
 */
export interface ClientsInput extends ScenarioInput {
  nodes: number;
}

export const LAB_SKU = 'sku-lab-01';
export const TTL_MS = 60_000;
/** A hold sent short, to be backdated by real time on a design without the backdate hook (shortHolds). */
export const SHORT_HOLD_MS = 1_000;

/** user-0001 … user-0150: the zero-padded ids the flash-sale lab uses. */
export function userId(n: number): string {
  return `user-${String(n).padStart(4, '0')}`;
}

export function requestKey(n: number): string {
  return `req-${String(n).padStart(4, '0')}`;
}

export interface CasePlan {
  clients: ClientScript[];
  /** Hold every client at this pause point until all have reached it (when the strategy passes it). */
  holdAt?: PausePoint;
}

/** The scenario holds (or kills) `operation` at one of these points: the first one it declares. */
export interface PauseNeed {
  operation: PausingOperation;
  anyOf: readonly PausePoint[];
}

/** Optional operations of the contract a scenario drives. */
export type LifecycleOperation = 'confirm' | 'release' | 'expire' | 'backdate' | 'disable';

/**
 * What a scenario reaches beyond the business API (reserve, confirm, release, status, remaining), each with
 * the line a black box (`run --target`: a service reached only through that API) sits the scenario out
 * with. An interleaving's sessions and lock view follow from its kind, a database crash from
 * `crashesDatabase`, session settings from `sessionSettings`; everything else a scenario declares here.
 */
export const SCENARIO_ACCESS = {
  'child-process':
    "it runs the strategy's operation in a child process of the harness and kills it -9 at a pause point",
  'database-clock': "it waits on the database's own clock (clock_timestamp())",
  'proxied-connection': 'it cuts a database connection through a proxy right after its COMMIT',
  'server-settings': "it changes the database server's settings (ALTER SYSTEM)",
  service: "it starts the harness's own HTTP service in front of an in-process strategy",
  'node-restart': 'it restarts a node (run it with --target-restart)',
} as const;
export type ScenarioAccess = keyof typeof SCENARIO_ACCESS;

interface ScenarioBase<O extends Observations> {
  /** What the scenario reaches beyond the business API (see SCENARIO_ACCESS); none when absent. */
  access?: readonly ScenarioAccess[];
  /** Session settings put under test in every session of the case (e.g. `{ synchronous_commit: 'on' }`). */
  sessionSettings?: Readonly<Record<string, string>>;
  /** The scenario crashes the database: n/a on a server the run cannot restart (`--database-url`). */
  crashesDatabase?: boolean;
  /**
   * Why its cases run with no other case beside them (`run --jobs`), when it reaches past its own database
   * in a way its crash or settings do not already say (runs-alone.ts).
   */
  runsAlone?: string;
  /**
   * The database connections its case opens besides the harness's own, when that is not one per client:
   * clients over HTTP share the service's pools. Cases run beside it while their connections fit the room.
   */
  connections?: number;
  /**
   * Every design, negative controls too, runs it and is judged as if it claimed to hold: an explored
   * program or a replayed finding, where any failing check is the finding (docs/explore.md).
   */
  everyDesignHolds?: true;
  /**
   * The opposite: a control scenario, whose fault no design survives (a split brain): every design runs it
   * as a negative control that one of these checks must catch, and fails where none does.
   */
  everyDesignCaughtBy?: readonly CheckName[];
  /**
   * The database under test is a cluster (a primary and standbys) with this replication, and the scenario
   * puts it through these faults (harness/cluster/, docs/cluster.md). Its cases run on a cluster the run
   * brings up per case (`--cluster embedded`, the default) or on the user's (`--cluster patroni` …).
   */
  cluster?: ClusterNeeds;
  /** The file the scenario was loaded from (a `file:` URL), for the report's sources; none when generated. */
  source?: string;
  id: string;
  /** One line on what the scenario drives, for `list` and the report. */
  summary: string;
  input: ScenarioInput;
  /** Pause points the scenario needs; a strategy that declares none of them is n/a, with the reason. */
  requires?: readonly PauseNeed[];
  /** Optional operations the strategy must implement for the scenario to apply. */
  operations?: readonly LifecycleOperation[];
  /**
   * What no program of the explorer can do that this scenario does (give-up runs the design with its retry
   * bound at its least): a control caught only in such scenarios is out of the explorer's reach.
   */
  beyondExplorer?: string;
  /**
   * Why a design takes no part, by what it is rather than what it lacks (a design that never retries has
   * no give-up path): n/a with the reason, never a coverage gap. Undefined: it takes part.
   */
  sitsOut?(strategy: Strategy): string | undefined;
  expect: Expectations<O>;
}

export type { Observations, Observed, OutcomeCounts };

/** What a script scenario may do: every operation goes through the strategy, on real connections. */
export interface ScriptContext<O extends Observations = Observations> {
  params: ScenarioParams;
  strategy: Strategy;
  /**
   * One client per request on the worker-thread driver, all started at one barrier; `nodeOf` binds
   * client i to a node (default: node i mod the scenario's `nodes`).
   */
  reserve(
    requests: ReserveRequest[],
    nodeOf?: (i: number) => NodeIdentity,
    /** `lastAfter`: each client's last request waits until this settles (DriveOptions.lastAfter). */
    options?: { rollbackAt?: PausePoint; perClient?: number; lastAfter?: Promise<unknown> },
  ): Promise<RequestResult[]>;
  /** One reserve on a session of the scenario's own (a proxied one); its answer is recorded like a client's. */
  reserveOn(session: SessionContext, request: ReserveRequest): Promise<RequestResult>;
  /**
   * The design with its retry bound (Strategy.retryBound) at its least, and `loser` made to lose every
   * round at `after-read` to `competitor(round)`, which commits first (script-give-up.ts): the loser's
   * answer, the rounds it lost and the bound; every competitor is sent and recorded too.
   */
  loseEveryRound(
    loser: ReserveRequest,
    competitor: (round: number) => ReserveRequest,
  ): Promise<{ answer: RequestResult | undefined; lost: number; bound: number }>;
  /** remaining(sku) as the strategy's own state says, read now. */
  remaining(sku: string): Promise<number>;
  /** status(key) as the strategy says, read now. */
  status(requestKey: string): Promise<string>;
  /** Waits until the database clock (clock_timestamp()) has passed `ms` from now: real time, observed. */
  databaseClockPasses(ms: number): Promise<void>;
  /** Waits until remaining(sku) has come down to `units` or fewer (observed through the strategy). */
  remainingAtMost(sku: string, units: number): Promise<void>;
  /** Crashes the database (immediate shutdown) and restarts it on the same data directory. */
  crashDatabase(): Promise<void>;
  /**
   * A session whose connection runs through a loopback proxy that can lose a COMMIT's answer
   * (crash/commit-ack-proxy.ts); both are closed after `work`.
   */
  withProxiedSession<T>(work: (session: SessionContext, proxy: CommitAckProxy) => Promise<T>): Promise<T>;
  /** Runs `work` while the server setting `name` is `value` (ALTER SYSTEM, reloaded), then resets it. */
  withServerSetting<T>(name: string, value: string, work: () => Promise<T>): Promise<T>;
  /** Node `index` of `count` in its `start`-th run (a restart is a new start). */
  node(index: number, count: number, start: number): NodeIdentity;
  /** `count` sessions, each on its own connection, closed afterwards. */
  withSessions<T>(count: number, work: (sessions: SessionContext[]) => Promise<T>): Promise<T>;
  /**
   * The strategy's backdate hook: these reservations' expiry lies in the past. A design without the hook
   * is not left out: the holds to be backdated are sent through shortHolds, and backdate then waits until
   * the database clock has passed their ttl.
   */
  backdate(requestKeys: readonly string[]): Promise<void>;
  /**
   * The requests as they are reserved when they are to be backdated: unchanged for a design with the
   * backdate hook; with this short ttl for one without it (see backdate).
   */
  shortHolds(requests: ReserveRequest[], ttlMs: number): ReserveRequest[];
  /** The strategy's lifecycle operations on a session; the case records what they did. */
  confirm(session: SessionContext, requestKey: string): Promise<boolean>;
  release(session: SessionContext, requestKey: string): Promise<boolean>;
  expire(session: SessionContext): Promise<number>;
  disable(session: SessionContext, sku: string): Promise<boolean>;
  /** Σ remaining(sku) over the case's stock, as the strategy's own state says, read now. */
  available(): Promise<number>;
  /** Runs the operation in a child process until it stops at `crashAt` (see crash-runner.ts). */
  crash(operation: CrashOperation, crashAt: PausePoint): Promise<CrashedChild>;
  /** Requests sent some other way (over HTTP), so the final read covers their keys. */
  sent(requests: readonly ReserveRequest[]): void;
  /** Answers clients received some other way (over HTTP). */
  answered(results: readonly RequestResult[]): void;
  /** The HTTP service in front of the strategy on a free loopback port, closed after `work`. */
  withService<T>(
    settings: { admission: AdmissionSettings; workMs: number },
    work: (service: ReservationService) => Promise<T>,
  ): Promise<T>;
  observe<K extends keyof O & string>(name: K, value: O[K]): void;
  /** The cluster under test and its faults (a scenario that declares `cluster`). */
  cluster: ClusterContext;
}

/** A sequence of phases (reserve, backdate, expire, crash …) written as code. */
export interface ScriptScenario<O extends Observations = Observations> extends ScenarioBase<O> {
  kind: 'script';
  input: ClientsInput;
  run(ctx: ScriptContext<O>): Promise<void>;
}

/** Many virtual clients on the worker-thread driver. */
export interface ClientsScenario extends ScenarioBase<Observations> {
  kind: 'clients';
  input: ClientsInput;
  plan(params: ScenarioParams): CasePlan;
}

/** A fixed interleaving of a few sessions on the interleaving engine (fixture inputs, no overrides). */
/**
 * A few sessions on the interleaving engine, written in PostgreSQL's isolation spec language (see
 * harness/interleaving/spec-parser.ts: RESERVE and RESUME steps call the strategy). The spec lists the one
 * permutation whose blocking is judged; `run --permutations all` also runs every other order.
 */
export interface InterleavingScenario<O extends Observations = Observations> extends ScenarioBase<O> {
  kind: 'interleaving';
  spec: string;
}

// biome-ignore lint/suspicious/noExplicitAny: each script scenario types its own observations
export type Scenario = ClientsScenario | InterleavingScenario<any> | ScriptScenario<any>;

/** Gives a scenario file its types; the runner sees it as a plain Scenario. */
export function defineScenario<O extends Observations>(
  scenario: ScriptScenario<O> | InterleavingScenario<O>,
): Scenario;
export function defineScenario(scenario: ClientsScenario | InterleavingScenario): Scenario;
export function defineScenario(scenario: Scenario): Scenario {
  return scenario;
}

export function firstSku(params: ScenarioParams): StockLine {
  const line = params.stock[0];
  if (!line) throw new Error('a scenario needs at least one stock line');
  return line;
}

/** One request on the first sku with this key and user. */
export function requestOn(params: ScenarioParams, requestKey: string, user: string): ReserveRequest {
  return { requestKey, user, sku: firstSku(params).sku, ttlMs: params.ttlMs };
}

/** One client per user (user-0001 …), one request each, on the first sku. */
export function distinctUserClients(params: ScenarioParams): ClientScript[] {
  return requestsFor(params, 1, params.clients).map((request, index) => ({ index, requests: [request] }));
}

/** Runs expire on `jobs` sessions at once (real connections contending for the same row locks). */
export async function expireConcurrently(ctx: ScriptContext, jobs: number): Promise<number> {
  const units = await ctx.withSessions(jobs, (sessions) => Promise.all(sessions.map((s) => ctx.expire(s))));
  return units.reduce((a, b) => a + b, 0);
}

export function requestsFor(params: ScenarioParams, from: number, count: number): ReserveRequest[] {
  const sku = firstSku(params).sku;
  return Array.from({ length: count }, (_, i) => ({
    requestKey: requestKey(from + i),
    user: userId(from + i),
    sku,
    ttlMs: params.ttlMs,
  }));
}

/**
 * For runs where some holders roll back: every unit the committing clients could have taken is either
 * HELD or counted as a false sold-out, no request errored, and only aborting clients rolled back.
 */
export function everyUnitAccounted(
  counts: { stock: number; clients: number; aborting: number },
  outcomes: OutcomeCounts,
  invariants: Invariants,
): Problem[] {
  const problems: string[] = [];
  const held = outcomes.HELD ?? 0;
  const attainable = Math.min(counts.stock, counts.clients - counts.aborting);
  if (held + invariants.falseSoldOut !== attainable) {
    problems.push(
      `HELD ${held} + falseSoldOut ${invariants.falseSoldOut}, expected ${attainable} units accounted`,
    );
  }
  if ((outcomes.ROLLED_BACK ?? 0) > counts.aborting) {
    problems.push(`ROLLED_BACK ${outcomes.ROLLED_BACK}, at most ${counts.aborting} clients abort`);
  }
  const answered = Object.values(outcomes).reduce((a, b) => a + b, 0);
  if (answered !== counts.clients) problems.push(`${answered} answers for ${counts.clients} clients`);
  return problems.map((message) => ({ check: 'outcomes', message }));
}
