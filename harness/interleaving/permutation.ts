/**
 * An interleaving, as PostgreSQL's isolation tester writes one: sessions (each its own connection) and
 * the order in which their steps are sent. A step is sent without waiting for the previous one to finish;
 * the engine moves on once it has completed or is seen blocked by another session.
 */
import type { PausePoint, ReserveRequest, ReserveResult } from '../../strategies/contract.ts';

export type Step =
  /** Raw SQL on the session's connection. */
  | { name: string; session: string; sql: string }
  /**
   * The strategy's reserve. With `until`, the step completes when the operation reaches that pause point
   * and the operation stays there, transaction open, until a `resume` step of the same session.
   */
  | { name: string; session: string; reserve: ReserveRequest; until?: PausePoint }
  /** Continue a paused operation to its end (`commit`), or make it roll back at the pause (`rollback`). */
  | { name: string; session: string; resume: 'commit' | 'rollback' };

export interface Permutation {
  sessions: readonly string[];
  steps: readonly Step[];
}

export type StepResult =
  | {
      status: 'ok';
      rows?: Record<string, unknown>[];
      answer?: ReserveResult;
      paused?: PausePoint;
      rolledBack?: true;
    }
  | { status: 'error'; sqlstate?: string; error: string };

export interface StepRecord {
  step: string;
  session: string;
  /** For reserve and resume steps: the request the operation is serving. */
  requestKey?: string;
  /** Seen waiting on another session's lock (pg_blocking_pids) before it completed. */
  blocked: boolean;
  result: StepResult;
}
