/** An operation as the linearizability search takes it: with its answer to match, and how it may be placed. */
import type { Answer, Call, HistoryOperation } from './history.ts';
import type { TimedCall } from './model.ts';

/**
 * `C`, `A`: the contract's calls and answers; `T`: the call as its model takes it (the reservation model
 * adds the database-clock bounds TTL and expiry are judged on).
 */
export interface SearchOperation<C = Call, A = Answer, T = TimedCall> {
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
