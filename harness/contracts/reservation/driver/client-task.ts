/**
 * What the main thread sends a worker thread of the reservation contract's clients, and what comes back:
 * plain data, cloneable across threads.
 */
import type { NodeIdentity, Outcome, PausePoint, ReserveRequest } from '../../../../strategies/contract.ts';
import type { BarrierHandle, CaseConnection } from '../../../driver/case-connection.ts';

export interface ClientScript {
  index: number;
  requests: ReserveRequest[];
  /** Roll the transaction back when the operation reaches this pause point (an aborting holder). */
  rollbackAt?: PausePoint;
  /**
   * Meet the others' hold barrier at this point instead of the common one: a lead client held at
   * `before-commit`, unit taken, while every other client waits at `after-read`.
   */
  holdAt?: PausePoint;
  /** The node the client talks to; unbound, client i talks to node i mod the case's node count. */
  node?: NodeIdentity;
  /** The client stops at its first answer other than HELD (the sell-what-remains probe sells until refused). */
  untilRefused?: boolean;
}

export interface ClientTask {
  strategyModuleUrl: string;
  /** A module whose `importDesign(moduleUrl)` loads and checks the strategy (its contract's registry). */
  strategyImporter: string;
  connection: CaseConnection;
  clients: ClientScript[];
  /** Every client connects first, then waits here so all start together. */
  start: BarrierHandle;
  /** When set, every client is held at this pause point until all have reached it (or ended before it). */
  hold?: BarrierHandle & { point: PausePoint };
  /**
   * When set, every client waits here before its last request, until the others have too (or ended) and
   * the harness has passed it (DriveOptions.lastAfter).
   */
  lastGate?: BarrierHandle;
  timeoutMs: number;
}

export interface RequestResult {
  requestKey: string;
  /** Who sent it, for what: the harness attributes each key's final status to its sender. */
  user: string;
  sku: string;
  /**
   * ROLLED_BACK: the client rolled back at a pause point (it was never told HELD). INDETERMINATE: sent, but
   * the fault the scenario causes (a crash, a terminated backend) cut the answer off: it may or may not
   * have committed, and the final read says which.
   */
  outcome: Outcome | 'ROLLED_BACK' | 'ERROR' | 'INDETERMINATE';
  /** The key's status the answer carried, one of its contract's (the driver checked the answer against it). */
  status?: string;
  latencyMs: number;
  /**
   * For the case's history: when the request was sent and its answer was in, on the harness clock
   * (`performance.timeOrigin + performance.now()`, shared by worker threads), and who sent it. Absent,
   * the history bounds the request by its batch.
   */
  invokedAt?: number;
  completedAt?: number;
  session?: string;
  node?: string;
  /** Attempts the strategy made again before this answer, by reason (SessionContext.retried). */
  retries?: Record<string, number>;
  sqlstate?: string;
  error?: string;
}

export interface ClientResult {
  index: number;
  results: RequestResult[];
}
