/**
 * An interleaving, as PostgreSQL's isolation tester writes one: sessions (each its own connection) and
 * the order in which their steps are sent. A step is sent without waiting for the previous one to finish;
 * the engine moves on once it has completed or is seen blocked by another session.
 */
import type {
  PausePoint,
  ReservationStatus,
  ReserveRequest,
  ReserveResult,
} from '../../strategies/contract.ts';
import type { PaymentPausePoint, PaymentRequest, PaymentResult } from '../../strategies/payment/contract.ts';

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
  /** `ON <i>/<n>`: the node its operation runs on. */
  on?: NodeRef;
}

export type Step =
  /** Raw SQL on the session's connection. */
  | (StepBase & { sql: string })
  /**
   * The strategy's reserve. With `until`, the step completes when the operation reaches that pause point
   * and the operation stays there, transaction open, until a `resume` step of the same session.
   */
  | (StepBase & { reserve: ReserveRequest; until?: PausePoint; on?: NodeRef })
  /**
   * Continue a paused operation to its end (`commit`), make it roll back at the pause (`rollback`), or
   * kill it there (`kill`): its backend is terminated as a `kill -9` of its process would, its node
   * restarts, and the session's later steps run on a new connection.
   */
  | (StepBase & { resume: 'commit' | 'rollback' | 'kill' })
  /**
   * A lifecycle operation of the strategy: confirm, release (of `requestKey`), expire, disable (the sku in
   * `requestKey`), or the backdate hook (`requestKey`'s expiry moved into the past). With `until`, it
   * stops at that pause point like a reserve.
   */
  | (StepBase & { operation: LifecycleStep; requestKey?: string; until?: PausePoint; on?: NodeRef })
  /**
   * The payment design's pay (the payment contract's one operation), with the request the spec's PAY
   * step wrote; with `until`, it stops at that pause point like a reserve.
   */
  | (StepBase & { pay: PaymentRequest; until?: PaymentPausePoint })
  /** A read of the strategy's state on the session's connection: `status(requestKey)`, `remaining(sku)`. */
  | (StepBase & { read: 'status'; requestKey: string })
  | (StepBase & { read: 'remaining'; sku: string })
  /** Completes once the database clock (clock_timestamp() on the session's connection) has passed `waitMs`. */
  | (StepBase & { waitMs: number })
  /** Node `restart` restarts: its later operations run in a new incarnation, its memory gone. */
  | (StepBase & { restart: NodeRef });

export const LIFECYCLE_STEPS = ['confirm', 'release', 'expire', 'backdate', 'disable'] as const;
export type LifecycleStep = (typeof LIFECYCLE_STEPS)[number];

/**
 * The steps that call the design instead of sending SQL: a reserve, a lifecycle operation, a pay, a
 * resume, a read.
 */
export type StrategyStep = Extract<
  Step,
  { reserve: unknown } | { operation: unknown } | { pay: unknown } | { resume: unknown } | { read: unknown }
>;

export const isStrategyStep = (step: Step): step is StrategyStep =>
  'reserve' in step || 'operation' in step || 'pay' in step || 'resume' in step || 'read' in step;

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
      answer?: ReserveResult;
      paused?: PausePoint;
      rolledBack?: true;
      /**
       * What a lifecycle step returned (confirm and release: whether it moved the row; expire: units back),
       * or a read's answer (status: the key's status; remaining: units).
       */
      value?: boolean | number | ReservationStatus | 'NOT_FOUND';
      /** A resume step found its operation already ended before the pause point: nothing to resume. */
      endedBeforePause?: true;
      /** A PAY step's answer: the payment design's outcome and the response it carries. */
      payment?: PaymentResult;
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
  /** For reserve, pay and resume steps: the request (a pay's idempotency key) the operation is serving. */
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
