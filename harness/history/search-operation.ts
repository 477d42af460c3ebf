/** An operation as the linearizability search takes it: with its answer to match, and how it may be placed. */
import type { Answer, HistoryOperation } from './history.ts';
import type { TimedCall } from './model.ts';

export interface SearchOperation {
  op: HistoryOperation;
  timed: TimedCall;
  /** The answer it must have (undefined: any answer the model allows). */
  wanted?: Answer | undefined;
  /** It must take effect (an operation that answered); false where it may never have. */
  required: boolean;
  /**
   * Tried only when nothing else fits, like an operation that may never have taken effect (an answer set
   * aside to explain a witness: it takes what is left).
   */
  deferred?: boolean;
}
