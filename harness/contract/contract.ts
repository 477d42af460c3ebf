/**
 * A business contract the harness judges designs against (each in harness/contracts/<id>/), as one
 * object: everything the harness knows of the contract and nothing of any other. Loading, fresh tables,
 * lanes and the suite, deadlines, permutations, faults and crashes, the history checker's search, reports,
 * JUnit and the command line exist once and take a contract; a contract's own folder
 * (harness/contracts/<id>/) holds what only it knows — how its designs are declared and checked, its
 * operations and outcomes, the steps its specs and scripts may use, its final read, its invariants, its
 * sequential model, its report rows, its bench operation — and harness/contracts/index.ts lists them.
 * docs/contracts.md says which files a new contract adds.
 */
import type { ClientBase } from 'pg';
import type { ZodType } from 'zod';
import type { Capability, Expectation, StrategyParameter } from '../../strategies/contract.ts';
import type { RunDatabase } from '../database/database.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import type { AdmissionSettings } from '../gate/admission.ts';
import type { GateChoice } from '../gate/gate.ts';
import type { SpecVerbs } from '../interleaving/spec-verbs.ts';
import type { ParamSweep } from '../registry/strategy-variants.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import type { DesignSeries } from './bench-series.ts';
import type { DetailReading } from './case-matrix.ts';
import type { CaseSettings, RunSettings } from './case-settings.ts';
import type { ContractExplore } from './contract-explore.ts';
import type { ContractTarget } from './contract-target.ts';

/** What every design of every contract declares, whatever its operations (each contract's type adds them). */
export interface DesignBase {
  /** The contract the design implements; absent in a design of the first contract listed. */
  contract?: string;
  id: string;
  title: string;
  /** One line: how the design stays correct (or, for a control, what it gets wrong). */
  guarantee: string;
  expect: Expectation;
  /** The scenarios a safe design takes part in; absent: all of its contract's. */
  scenarios?: readonly string[];
  /** A negative control's reason to exist: per scenario, the checks that must catch it (any one of them). */
  caughtBy?: Readonly<Record<string, readonly string[]>>;
  /** What the design relies on that a server can refuse; a case on a server that refused one is n/a. */
  needs?: readonly Capability[];
  /** The design's knobs (`--param <id>.<knob>=v1,v2,…`), each variant built by `configure`. */
  parameters?: Readonly<Record<string, StrategyParameter>>;
  /** Per operation, the pause points it passes, in order. */
  pausePoints: Readonly<Partial<Record<string, readonly string[]>>>;
}

/** What the command line, the report's sources and the bench read of a loaded design, whatever its contract. */
export interface DesignInfo {
  design: DesignBase;
  /** Where worker threads and crash children import it again (a variant's knobs in the fragment). */
  moduleUrl: string;
}

/**
 * A contract's designs: the built-in ones by id, a user's module (or, where the contract has one, a design
 * in SQL) by path, each checked against the contract's zod schema when it loads and refused in one line.
 * `R` is what the contract's own code holds of a loaded design (its module URL beside it).
 */
export interface DesignCatalog<R> {
  /** The built-in designs' ids, safe designs first, then the negative controls. */
  readonly builtInIds: readonly string[];
  /** The schema a design module's default export is checked against (a design in SQL's header too). */
  readonly schema: ZodType;
  /** A built-in id, or a path to a module (or file) of this contract's; one line (exit 2) when it is neither. */
  load(name: string): Promise<R>;
  /** The design a module URL names, checked, with the knobs its fragment carries (worker threads, children). */
  importDesign(moduleUrl: string): Promise<DesignBase>;
  /** Whether a path names a file this contract reads as a design without importing it (a design in SQL). */
  readsFile?(path: string): boolean;
  /** The designs with a `--param` sweep's variants, one per value. */
  withVariants(refs: readonly R[], sweep: ParamSweep): R[];
  info(ref: R): DesignInfo;
  /** Refuses, before any case, in one line (exit 2), a design the server will not take (a design in SQL). */
  checkInstall?(admin: ClientBase, refs: readonly R[]): Promise<void>;
}

/** What every scenario of every contract says of itself. */
export interface ScenarioBase {
  id: string;
  /** One line on what the scenario drives, for `list` and the report. */
  summary: string;
  /** The file the scenario was loaded from (a `file:` URL), for the report's sources; none when generated. */
  source?: string;
  /**
   * What cluster the scenario's cases run on (harness/cluster/, docs/cluster.md): a run brings one up only
   * when a scenario that says so is selected (`run --cluster`).
   */
  cluster?: unknown;
}

/** A contract's scenarios: those of its folder under fixtures/, and a spec file run as one (`run --spec`). */
export interface ScenarioCatalog<S extends ScenarioBase> {
  readonly all: readonly S[];
  /**
   * A spec file whose steps drive this contract, as a scenario every design runs and is judged on as if it
   * claimed to hold (a finding the explorer wrote, a user's own); one line (exit 2) when it cannot be one.
   */
  specFile(text: string, file: string): S;
}

/**
 * The scenarios of a contract a run drives when it names none: a cluster scenario brings up a cluster of its
 * own, so it runs only when the run was given `--cluster` (docs/cluster.md).
 */
export function scenariosOfDefaultRun<S extends ScenarioBase>(
  catalog: ScenarioCatalog<S>,
  withClusters: boolean,
): S[] {
  return catalog.all.filter((s) => withClusters || !s.cluster);
}

/** Where a case may run (harness/suite/case-lanes.ts): alone on its server or beside others, and its connections. */
export interface LanePlacement {
  /** Why the case must run with nothing beside it on its server; undefined when it may share the server. */
  alone: string | undefined;
  /** The connections the case opens at most (its sessions and the harness's own). */
  connections: number;
}

/** The order work starts in: what runs alone, then explorations, then waiting work, then the rest. */
export const START_RANK = { alone: 0, exploreHold: 1, exploreViolate: 2, waiting: 3, case: 4 } as const;

/** One case of a run as the suite schedules it: where it may run, when it starts, how it runs. */
export interface CaseWork<C extends CaseResultBase> {
  placement: LanePlacement;
  /** START_RANK: lower starts first; equal ranks keep the report's order. */
  rank: number;
  /** The case on a lane's run database; its result, never an exception, for a case that ran or broke. */
  run(db: RunDatabase, settings: CaseSettings): Promise<C>;
}

/** The designs and scenarios of one contract a run drives, and what it explores of them. */
export interface Selection<R, S extends ScenarioBase, C extends CaseResultBase = CaseResultBase> {
  designs: readonly R[];
  scenarios: readonly S[];
  /**
   * Each design explored (`explore/<id>`, listed after the scenarios' cases) by the explorer's engine over
   * the contract's `explore` side: the command line passes it in, so that the suite, which the engine sits
   * above, does not depend on it. `connections`: what one of its programs opens at most.
   */
  explore?: { connections: number; run(db: RunDatabase, ref: R, settings: CaseSettings): Promise<C> };
}

/** A contract's share of one run: its cases in the report's order, and what they share until the run ends. */
export interface ContractRun<C extends CaseResultBase> {
  work: CaseWork<C>[];
  /** Frees what the cases shared (a pool of worker threads), once every case is done. */
  close(): Promise<void>;
}

/** A table of a report as plain rows: report.md and the terminal each render it their own way. */
export interface TableData {
  headers: string[];
  rows: string[][];
}

/** A table on the terminal, with the width each column may take at most (undefined: no cap). */
export interface TerminalTable {
  table: TableData;
  caps?: readonly (number | undefined)[];
}

/** What a contract writes into report.md: lines (Markdown) and tables, in order. */
export type MarkdownBlock = string | TableData;
/** What a contract prints on the terminal: lines (wrapped to the terminal) and tables, in order. */
export type TerminalBlock = string | TerminalTable;

/**
 * A contract's place in the report (report.json, report.md, the terminal): the JSON fields it fills, their
 * schema, and what it shows of them. The fields' names are the contract's own (`cases`, …).
 */
export interface ContractReport<R, C extends CaseResultBase, F = Record<string, unknown>> {
  /** The zod shape of the fields this contract adds to report.json (report-schema.ts joins every contract's). */
  readonly shape: Readonly<Record<string, ZodType>>;
  /** The fields from a run's cases and the designs it ran (its boundary rows need their guarantees). */
  fields(cases: readonly C[], designs: readonly R[]): F;
  /** This contract's cases in a report's fields. */
  casesOf(fields: F): readonly CaseResultBase[];
  /** report.md's sections of this contract (none when it ran nothing): its designs and its cases. */
  markdown(fields: F): MarkdownBlock[];
  /** The terminal's tables of this contract (none when it ran nothing): its designs. */
  terminal(fields: F): TerminalBlock[];
  /**
   * What the report shows of this contract after every contract's own sections (its coverage, a target,
   * the isolation and version matrices), in report.md and on the terminal.
   */
  after?: { markdown(fields: F): MarkdownBlock[]; terminal(fields: F): TerminalBlock[] };
  /** One case's line while the run goes on (wrapped to the terminal by the caller). */
  caseLine(result: C): string;
  /**
   * The contract's matrix (case-matrix.ts): its name in a heading (a plural noun), what it promises in a
   * line, and how it reads its own cases (the count a check measured, a boundary, a coverage gap, the facts
   * report.md's case details list).
   */
  readonly matrix: { readonly name: string; readonly promise: string; readonly reading: DetailReading<C> };
}

/** A contract's bench series (harness/bench/): what its clients send and count, and how its report says it. */
export interface ContractBench<R> {
  /** What a series' throughput counts, per second (`<answers>/s`), and its short form for the terminal. */
  readonly unit: string;
  readonly shortUnit: string;
  /** report.md's lines on what throughput and latency count. */
  readonly note: readonly string[];
  /** The verdict of a bench whose every series passed its audit. */
  readonly ok: string;
  /** The series of one design: its tables, what its clients send, the answer counted, the audit. */
  design(ref: R): DesignSeries;
  /** report.md's section of the contract's own counts (e.g. the keys it answered). */
  section?(series: readonly BenchSeriesCounts[]): MarkdownBlock[];
}

/** What a contract's bench section reads of each series. */
export interface BenchSeriesCounts {
  strategy: string;
  durability: 'on' | 'off';
  clients: number;
  outcomes: Readonly<Record<string, number>>;
  tally?: Readonly<Record<string, number>> | undefined;
}

/** What `reservebench init` writes for a design of the contract, from one of its built-in designs. */
export interface DesignStarter {
  /** The built-in design's source (`from`), made a team's own design `id`: its imports, id and header. */
  design(source: string, from: string, id: string): string;
  /** A CI workflow that runs the suite on the design file and fails the job on exit 1. */
  workflow(designFile: string): string;
}

/** What `serve` gives a contract's HTTP service, whatever its design (docs/http-api.md, docs/scale.md). */
export interface ServiceSettings {
  /** The design served: a built-in id or a module path, loaded by the contract. */
  design: string;
  port: number;
  admission: AdmissionSettings;
  gate: GateChoice;
  /** Extra work per admitted request, before its transaction. */
  workMs: number;
  stock: number;
  /** The expiry job's period; 0: no job. */
  expireEveryMs: number;
  logJson: boolean;
  /** A test endpoint that replaces the tables with the stock it is given. */
  allowReset: boolean;
  databaseUrl: string | undefined;
  postgres: PostgresMajor | undefined;
}

/** A contract's HTTP service (`serve`): one process in front of a design, or several on one schema. */
export interface ContractService {
  /** What `--schema` must match: a schema name the service's tables may be put in. */
  readonly schemaName: RegExp;
  /** One service until a signal stops it: its exit code. `node`: which of N nodes it is (0-based). */
  serve(
    settings: ServiceSettings & { schema: string | undefined; node: { index: number; count: number } },
  ): Promise<number>;
  /** `instances` services on one shared schema, ports P, P+1, …, until a signal stops them: the exit code. */
  serveInstances(settings: ServiceSettings & { instances: number }): Promise<number>;
}

/** A business contract: one object per contract, in its own folder (harness/contracts/<id>/). */
export interface Contract<
  R = unknown,
  S extends ScenarioBase = ScenarioBase,
  C extends CaseResultBase = CaseResultBase,
  F = Record<string, unknown>,
> {
  /** What a design module's `contract` member says ; the first contract listed needs none. */
  readonly id: string;
  /** One line naming it in the report and `list` (`… contract (…)`). */
  readonly title: string;
  readonly designs: DesignCatalog<R>;
  readonly scenarios: ScenarioCatalog<S>;
  /** The verbs its isolation specs may use beside SQL, WAIT and RESUME (`PAY`, `RESERVE`, …). */
  readonly verbs: SpecVerbs;
  /** Its cases of a run: every selected scenario against every selected design, `repeat` times each. */
  plan(selection: Selection<R, S, C>, settings: RunSettings): ContractRun<C>;
  readonly report: ContractReport<R, C, F>;
  readonly bench?: ContractBench<R>;
  /** What the explorer needs of the contract (contract-explore.ts); none: its designs are not explored. */
  readonly explore?: ContractExplore<R, C>;
  /** What `init` writes for a design of the contract; none: `init` starts designs of another contract. */
  readonly starter?: DesignStarter;
  /** What `serve` runs for the contract; none: `serve` serves another contract. */
  readonly service?: ContractService;
  /** `run --target` against a service speaking the contract's API; none: `run --target` refuses it. */
  readonly target?: ContractTarget<R, S, C>;
}
