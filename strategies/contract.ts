/**
 * The contract every reservation design implements. Tables are the strategy's own; the behaviour
 * (outcomes, statuses, invariants it reports) is common, so the harness can drive and audit any design
 * the same way. A user's own strategy is a module whose default export satisfies `Strategy`.
 */
import type { ClientBase } from 'pg';

/**
 * GAVE_UP: a design with a bounded retry loop (optimistic concurrency, SERIALIZABLE) ran out of attempts;
 * the request was not served and nothing of it was written.
 */
export const OUTCOMES = [
  'HELD',
  'REPLAY',
  'SOLD_OUT',
  'USER_LIMIT',
  'KEY_REUSED',
  'BAD_REQUEST',
  'GAVE_UP',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const STATUSES = ['HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED'] as const;
export type ReservationStatus = (typeof STATUSES)[number];

export interface ReserveRequest {
  requestKey: string;
  user: string;
  sku: string;
  ttlMs: number;
}

export interface ReserveResult {
  outcome: Outcome;
  /** The reservation's current status for HELD and REPLAY answers. */
  status?: ReservationStatus;
}

/**
 * Named places inside an operation where the harness may hold a session (a barrier, an interleaving step)
 * or kill the process. `after-read`: the strategy has read what its decision depends on, nothing is
 * decided yet. `before-commit`: every write is done, the transaction is still open.
 * `between-transactions`: an operation that spans transactions has committed its first one.
 * `after-memory-before-ledger`: an in-memory count is decremented, its ledger row not yet written.
 */
export const PAUSE_POINTS = [
  'after-read',
  'before-commit',
  'between-transactions',
  'after-memory-before-ledger',
] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];

/** The pause points where an operation has committed nothing that decides its answer. */
export const UNDECIDED_PAUSE_POINTS: readonly PausePoint[] = [
  'after-read',
  'before-commit',
  'after-memory-before-ledger',
];

/** The operations that can pass pause points; each declares its own, so a scenario holds the right one. */
export const PAUSING_OPERATIONS = ['reserve', 'confirm', 'release', 'expire', 'disable'] as const;
export type PausingOperation = (typeof PAUSING_OPERATIONS)[number];
export type PausePoints = Partial<Record<PausingOperation, readonly PausePoint[]>>;

/**
 * The checks a verdict is made of. A negative control names, per scenario, the ones that must catch it
 * (`caughtBy`); the harness computes all of them itself from the answers and its own final read.
 * The first seven are counts (see Invariants in the harness); `outcomes` is the scenario's exact answer
 * counts, `observations` the figures it observed along the way, `blocking` which interleaving steps were
 * seen waiting, `errors` requests that failed with an exception, `exercised` that the case drove what it
 * claims (an abort that held a unit, a confirm that won, …).
 */
export const CHECKS = [
  'oversold',
  'drift',
  'duplicateActive',
  'duplicateKey',
  'lostAcknowledged',
  'unacknowledgedActive',
  'auditMismatch',
  'outcomes',
  'observations',
  'blocking',
  'errors',
  'exercised',
  'reconciled',
  'ledgerReplayDrift',
  'linearizable',
  'heldAfterDisable',
  'sellsWhatRemains',
  'booksMatchAnswers',
  'gaveUpWrote',
] as const;
export type CheckName = (typeof CHECKS)[number];

/** What each check fires on, for `list`, the generated reference (docs/reference.md) and reviewers. */
export const CHECK_MEANING: Readonly<Record<CheckName, string>> = {
  oversold:
    'Σ per sku of max(0, active − total), active being the keys whose final status is HELD or CONFIRMED',
  drift: 'any sku whose total − remaining(sku) − active is not 0 (one sku cannot hide another)',
  duplicateActive: '(user, sku) pairs with more than one active key',
  duplicateKey:
    "request_keys owning more than one row (only the strategy's audit can see rows no key reaches)",
  lostAcknowledged:
    'HELD answers whose key reads NOT_FOUND, RELEASED although nothing released it, or EXPIRED where nothing expired',
  unacknowledgedActive: 'active keys no client was told about (no HELD or REPLAY answer)',
  auditMismatch: "the strategy's own audit() disagrees with the harness's final read",
  outcomes: "the answer counts differ from the scenario's exact expectation",
  observations:
    'a figure seen along the way (units an expiry returned, 503 accounting, crash phases) differs',
  blocking:
    'an interleaving step was seen waiting (pg_blocking_pids) where it must not, or not where it must',
  errors: 'a request failed with an exception the scenario did not cause on purpose',
  exercised: 'the case did not drive what it claims (no abort holding a unit, no winner on one side, …)',
  reconciled: "the strategy's books (counters, frozen units, sold units) do not add up",
  ledgerReplayDrift: "replaying the strategy's stock ledger does not give today's counters",
  linearizable:
    "no order of the case's operations, consistent with real time, gives every recorded answer under the contract's model (docs/history-checker.md)",
  heldAfterDisable:
    'bookings answered HELD although they were sent (or let go on from a pause before committing) after a disable of their sku had returned',
  sellsWhatRemains:
    'after the final read, reserving with fresh keys and users on every node, node by node, did not sell exactly remaining(sku) units and then answer SOLD_OUT (a leak derived accounting hides, or phantom stock)',
  booksMatchAnswers:
    "the design's books (audit().books: units sold, units frozen) disagree with the answers the harness recorded (confirms answered true; HELD less released, confirmed and expired)",
  gaveUpWrote:
    'a request answered GAVE_UP left something behind: its key reads other than NOT_FOUND, where no other answer for the key explains it',
};

/**
 * The process (or worker thread standing for one) a session runs on, for designs that keep state in
 * memory per node. A restart gives the node a new `incarnation`: memory kept under the old one is gone.
 */
export interface NodeIdentity {
  /** node-1, node-2, … : stable across restarts. */
  name: string;
  /** 0-based position among `count` nodes. */
  index: number;
  count: number;
  /** Unique per start of the node (and per case). */
  incarnation: string;
}

/** What an operation gets from the harness: its own connection, the pause hook and its node. */
export interface SessionContext {
  db: ClientBase;
  pause(point: PausePoint): Promise<void>;
  /**
   * Whether `pause(point)` may hold the session (or end the operation) in this call. False lets a design
   * skip what offering the point costs it (a design in SQL: a barrier round trip per point); absent: it may
   * at every point, so a design offers them all.
   */
  pausesAt?(point: PausePoint): boolean;
  node?: NodeIdentity;
  /**
   * Tells the harness the operation is trying again (after a 40001, a lost version check …), with the
   * reason (a SQLSTATE or a word); the harness counts retries per request and per case.
   */
  retried?(reason: string): void;
  /**
   * A session on a standby of the database under test, when it is a cluster whose scenario serves reads
   * from one (docs/cluster.md); absent otherwise. What it reads may run behind the primary: a design that
   * decides on it decides on the past.
   */
  standby?: ClientBase;
}

export interface StockLine {
  sku: string;
  total: number;
}

/** Per-sku counts read from the strategy's own tables, inside the harness's REPEATABLE READ snapshot. */
export interface SkuCounts {
  sku: string;
  total: number;
  /** What the strategy's own state says remains. */
  available: number;
  /** HELD + CONFIRMED rows. */
  active: number;
}

export interface StrategyAudit {
  skus: SkuCounts[];
  /** Users with more than one active reservation on one sku. */
  duplicateActive: number;
  /** request_keys that own more than one row. */
  duplicateKey: number;
  /** request_keys of every active reservation, to reconcile against the answers clients received. */
  activeKeys: string[];
  /** request_keys whose reservation the lifecycle ended (EXPIRED or RELEASED): acknowledged, not lost. */
  endedKeys: string[];
  /**
   * For designs that keep books (counters moved by a ledger, the frozen-stock chapter): whether every sku's
   * counters add up (`available + frozen + sold = total`), and how far replaying the ledger from zero lands
   * from today's counters (Σ of the absolute differences). Reported as invariants; either failing fails a
   * `hold` case. `skus`, where the books keep them: each sku's frozen and sold units, which the harness
   * checks against the answers it recorded (sold against confirms answered true, frozen against HELD
   * answers less the holds that ended).
   */
  books?: { reconciled: boolean; ledgerReplayDrift: number; skus?: BookFigures[] };
}

/**
 * What a design's books say of one sku beside `available`: units frozen by holds not yet ended, and units
 * sold (confirmed). The harness compares them with the answers it recorded (`booksMatchAnswers`).
 */
export interface BookFigures {
  sku: string;
  frozen: number;
  sold: number;
}

export type Expectation = 'hold' | 'violate';

/** Transaction isolation levels a run can put every session of a case at (`run --isolation`). */
export const ISOLATION_LEVELS = ['read-committed', 'repeatable-read', 'serializable'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];

/**
 * What a design or scenario may rely on that a PostgreSQL-protocol server can lack (CockroachDB, a
 * transaction pooler, a locked-down role): the run probes each on connect and makes a case that needs a
 * refused one n/a with the server's answer.
 */
export const CAPABILITIES = [
  'skipLocked',
  'nowait',
  'advisoryLocks',
  'lockView',
  'readCommitted',
  'repeatableRead',
  'serializable',
  'returningOld',
  'synchronousCommit',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface Strategy {
  id: string;
  title: string;
  /** One line: how the design stays correct (or, for a control, what it gets wrong). */
  guarantee: string;
  expect: Expectation;
  /**
   * The isolation levels `expect` is claimed at (default: read-committed only). At any other level of
   * `run --isolation` the strategy is measured, not judged: what broke is reported, the run does not fail.
   */
  isolation?: readonly IsolationLevel[];
  /**
   * Scenarios a safe design takes part in; omitted means all. A negative control's scenarios are the keys
   * of `caughtBy`. Every other case is reported `n/a` with `notApplicable` as the reason.
   */
  scenarios?: readonly string[];
  notApplicable?: string;
  /**
   * The oldest PostgreSQL major the design runs on, and the feature it needs from it (`RETURNING old`, new
   * in 18). On an older server (the server's own `server_version_num`, embedded or `--database-url`) every
   * case of the design is `n/a` with that reason.
   */
  minPostgres?: { major: number; needs: string };
  /**
   * What the design relies on beyond plain SQL (`skipLocked`, `serializable`, …). On a server whose probe
   * refused one, every case of the design is `n/a` with the server's answer, never a failure.
   */
  needs?: readonly Capability[];
  /**
   * The design's knobs (bucket rows, batch limits, retry budgets): each a whole number with its default
   * and bounds. `run` and `bench` take `--param <id>.<knob>=v1,v2,…` and run one variant per value,
   * `configure` building each; the variant's id is `<id>[<knob>=<v>]`, so its cases and series are its own.
   */
  parameters?: Readonly<Record<string, StrategyParameter>>;
  /** The design with these knob values (every declared knob given, each within its bounds). */
  configure?(values: Readonly<Record<string, number>>): Strategy;
  /**
   * For a design that retries and answers GAVE_UP when its attempts run out: the knob (in `parameters`)
   * that bounds a reserve's attempts. The give-up scenario runs the design with it at its least (2, or the
   * knob's `min`) and makes every attempt lose at `after-read`, so the give-up path is driven on purpose
   * and judged (GAVE_UP writes nothing). A design without it takes no part there.
   */
  retryBound?: string;
  /**
   * A negative control's reason to exist: per scenario, the checks that must catch it (any one of them).
   * Required with `expect: 'violate'`; its keys are the only scenarios the control runs in. Caught only by
   * another check, the case fails as "caught for the wrong reason".
   */
  caughtBy?: Readonly<Record<string, readonly CheckName[]>>;
  /**
   * Pause points each operation passes through (the harness only holds one the operation declares, and a
   * scenario that needs an undeclared one is n/a for the strategy).
   */
  pausePoints: PausePoints;
  /** Creates the strategy's tables in the current schema (search_path) and loads the stock. */
  setup(db: ClientBase, stock: readonly StockLine[]): Promise<void>;
  reserve(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult>;
  /** HELD → CONFIRMED (until the expiry job has moved it); true when this call moved the row. */
  confirm?(ctx: SessionContext, requestKey: string): Promise<boolean>;
  /** HELD → RELEASED with one unit back; true when this call moved the row. */
  release?(ctx: SessionContext, requestKey: string): Promise<boolean>;
  /** Every HELD past expires_at → EXPIRED; returns the units this call gave back. */
  expire?(ctx: SessionContext): Promise<number>;
  /** The reservation's current status; the harness reads every key a case sent back through it. */
  status(db: ClientBase, requestKey: string): Promise<ReservationStatus | 'NOT_FOUND'>;
  /**
   * Units of `sku` the design would still sell, from its own stock state (its counter, free slots, its
   * nodes' shares): never derived from counting reservations, or drift could not show a disagreement.
   */
  remaining(db: ClientBase, sku: string): Promise<number>;
  /**
   * Why the design may answer SOLD_OUT while stock remains, when it may by design (it skips units locked
   * by transactions in flight; each node sells only its own share). The history check then allows a
   * SOLD_OUT at any point; without it, a SOLD_OUT no order explains fails the case (`linearizable`).
   */
  falseSoldOut?: string;
  /** Test hook: moves these reservations' expiry into the past, so expiry is tested without waiting. */
  backdate?(db: ClientBase, requestKeys: readonly string[]): Promise<void>;
  /**
   * An administrator stops selling `sku` (LabReserve's "disable the resource"): waits for reservations in
   * flight, and every reserve after it answers SOLD_OUT without booking anything. True when this call
   * disabled it.
   */
  disable?(ctx: SessionContext, sku: string): Promise<boolean>;
  /**
   * A second, independent reading of the strategy's own tables (it alone sees rows no key reaches, and
   * duplicate keys). The harness compares it with its own final read; any disagreement is `auditMismatch`.
   * Required of a strategy module (checked when it loads). Absent only for a black box the harness drives
   * from outside (`run --target`, an HTTP service): it has no tables to read, so `duplicateKey` and
   * `auditMismatch` are not computed and its cases say "no audit: black box".
   */
  audit?(db: ClientBase): Promise<StrategyAudit>;
}

/** A loaded strategy together with the module it came from, so worker threads can import it again. */
/** One knob of a design: a whole number from `min` to `max`, `default` when it is not given. */
export interface StrategyParameter {
  describe: string;
  default: number;
  min: number;
  max: number;
  /**
   * The value the explorer builds the design with, for a knob that only makes the design slower (a
   * simulated call's length): the explorer decides every order itself, so it changes how long a program
   * takes, never which orders are tried (harness/explore/explored-variant.ts).
   */
  explored?: number;
}

export interface StrategyRef {
  strategy: Strategy;
  moduleUrl: string;
}
