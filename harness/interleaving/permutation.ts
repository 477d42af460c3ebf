/**
 * An interleaving, as PostgreSQL's isolation tester writes one: sessions (each its own connection) and
 * the order in which their steps are sent. A step is sent without waiting for the previous one to finish;
 * the engine moves on once it has completed or is seen blocked by another session.
 */

/**
 * An annotation on one step of a permutation, as the isolation tester's `step(*)`, `step(other)` and
 * `step(other notices N)`: `once` reports the step as waiting before anything is looked at; `step` holds
 * back its completion while step `other` is still running; `notices` until `other`'s session has sent N
 * more notices. They only change when a completion is reported, never what the step does.
 */
export type Blocker =
  | { kind: 'once' }
  | { kind: 'step'; step: string }
  | { kind: 'notices'; step: string; count: number };

interface StepBase {
  name: string;
  session: string;
  /** Annotations of this step in this permutation. */
  blockers?: readonly Blocker[];
}

/**
 * Node `node` of `of` (1-based, as a spec writes `ON 2/3`): the process a strategy operation runs on, for
 * designs that keep state per node in memory. Without one, an operation runs on node 1 of 1.
 */
export interface NodeRef {
  node: number;
  of: number;
}

/**
 * A step a contract's verb wrote (harness/interleaving/spec-verbs.ts): a call of the design the run
 * drives, with what the engine reads of every such step; each contract's own fields ride beside these.
 */
export interface ContractStep extends StepBase {
  /** The contract whose verbs wrote the step, and run it. */
  contract: string;
  /** The verb, upper case (RESERVE, PAY, …). */
  verb: string;
  /** The request the step serves (a reserve's request key, a pay's idempotency key), for its record. */
  requestKey?: string;
  /** Where the call stops, transaction open, until a RESUME step of its session. */
  until?: string;
  /** `ON <i>/<n>` as written. */
  on?: NodeRef;
  /** The node its operation runs on (its `ON`, else 1/1); none for a step whose operation runs on no node. */
  node?: NodeRef;
}

export type Step =
  /** Raw SQL on the session's connection. */
  | (StepBase & { sql: string })
  /**
   * Continue a paused operation to its end (`commit`), make it roll back at the pause (`rollback`), or
   * kill it there (`kill`): its backend is terminated as a `kill -9` of its process would, its node
   * restarts, and the session's later steps run on a new connection.
   */
  | (StepBase & { resume: 'commit' | 'rollback' | 'kill' })
  /** A contract's operation or read (RESERVE, PAY, …): a call of the design the run drives. */
  | ContractStep
  /** Completes once the database clock (clock_timestamp() on the session's connection) has passed `waitMs`. */
  | (StepBase & { waitMs: number })
  /** Node `restart` restarts: its later operations run in a new incarnation, its memory gone. */
  | (StepBase & { restart: NodeRef })
  /**
   * The primary fails over to its synchronous standby, the next step in flight: a program the explorer runs
   * on a cluster, driven by its contract's explorer side; the engine runs none.
   */
  | (StepBase & { failover: true });

export const isContractStep = (step: Step): step is ContractStep => 'verb' in step;

/** The steps that call the design instead of sending SQL: a contract's step, and a resume. */
export const callsTheDesign = (step: Step): boolean => isContractStep(step) || 'resume' in step;

export interface Permutation {
  sessions: readonly string[];
  steps: readonly Step[];
}

/**
 * SQL around each permutation, as the isolation tester runs a spec's: `setup` blocks on the control
 * connection, then each session's own setup on its connection; after the last step each session's
 * teardown, then `teardown`.
 */
export interface PermutationFrame {
  setup?: readonly string[];
  teardown?: string;
  sessionSetup?: Readonly<Record<string, string>>;
  sessionTeardown?: Readonly<Record<string, string>>;
}

export type StepResult =
  | {
      status: 'ok';
      rows?: Record<string, unknown>[];
      /** A contract operation's answer, checked against its contract (a reserve's, a pay's). */
      answer?: unknown;
      paused?: string;
      rolledBack?: true;
      /**
       * What a call returned that is no answer of the contract's (confirm and release: whether it moved
       * the row; expire: units back), or a read's answer (status: the key's status; remaining: units).
       */
      value?: boolean | number | string;
      /** A resume step found its operation already ended before the pause point: nothing to resume. */
      endedBeforePause?: true;
    }
  /**
   * `killed`: RESUME KILL terminated the operation at its pause point, an unknown ending: whatever it had
   * committed before the pause stays, the rest is rolled back, and no answer came.
   */
  | { status: 'error'; sqlstate?: string; error: string; killed?: true };

/**
 * One step as it ran. Times are the harness clock in ms, `performance.timeOrigin + performance.now()`:
 * absolute, so records made on different worker threads compare. A strategy operation stopped at `UNTIL`
 * spans two records: its own step completes when it reaches the pause point (`completedAt` is then, and
 * the result says `paused`), and the RESUME step's record completes when the operation ends.
 */
export interface StepRecord {
  step: string;
  session: string;
  /** For a contract's step and a resume: the request (a pay's idempotency key) the operation is serving. */
  requestKey?: string;
  /** Seen waiting on another session's lock (pg_blocking_pids) before it completed. */
  blocked: boolean;
  /**
   * Seen retrying before it completed, and reported waiting for it: its operation called `ctx.retried`,
   * or its backend was in 3 or more transactions since the step was sent. Apart from `blocked`, which
   * the scenarios' blocking expectations judge.
   */
  retrying: boolean;
  /** When the step was sent to its session. */
  sentAt: number;
  /** When its outcome arrived; absent while it has not. */
  completedAt?: number;
  result: StepResult;
}

/** The rows of one row-returning statement, as the server sent them (text, NULL as null). */
export interface ResultTable {
  columns: string[];
  rows: (string | null)[][];
}

/** An error or notice as the server reported it. */
export interface ServerMessage {
  severity: string;
  message: string;
  detail?: string;
  hint?: string;
}

/**
 * What a run shows as it unfolds, in the order the isolation tester prints it: a step seen waiting, a
 * step reported completed (`afterWaiting`: it was reported waiting before) with its result sets and
 * error, rows returned by setup or teardown SQL, a session's notices, a teardown that failed.
 */
export type EngineEvent =
  | { kind: 'waiting'; step: Step }
  | {
      kind: 'completed';
      step: Step;
      afterWaiting: boolean;
      tables: readonly ResultTable[];
      error?: ServerMessage;
    }
  | { kind: 'rows'; tables: readonly ResultTable[] }
  | { kind: 'notice'; session: string; notice: ServerMessage }
  | { kind: 'teardown-failed'; where: string; error: string };
