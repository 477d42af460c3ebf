/** An operation as the linearizability search takes it: with its answer to match, and how it may be placed. */
import type { HistoryOperation } from './history.ts';

/**
 * `C`, `A`: the contract's calls and answers; `T`: the call as its model takes it (a model may add what it
 * judges on, such as the database-clock bounds of a TTL).
 */
export interface SearchOperation<C, A, T = unknown> {
  op: HistoryOperation<C, A>;
  timed: T;
  /** The answer it must have (undefined: any answer the model allows). */
  wanted?: A | undefined;
  /** It must take effect (an operation that answered); false where it may never have. */
  required: boolean;
  /**
   * Tried only when nothing else fits, like an operation that may never have taken effect (an answer set
   * aside to explain a witness: it takes what is left).
   */
  deferred?: boolean;
}
