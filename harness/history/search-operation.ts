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

/**
 * Operations the search takes: answered ones with their answer; unknown ones with any answer, optional,
 * their database clock open until `end` (the contract's end of the history); aborted ones left out.
 */
export function searchOperationsOf<C, A>(
  operations: readonly HistoryOperation<C, A>[],
  end: number,
): SearchOperation<C, A, { id: number; call: C; db: { from: number; to: number } }>[] {
  return operations
    .filter((op) => op.ending.kind !== 'aborted')
    .map((op) => ({
      op,
      timed: { id: op.id, call: op.call, db: { from: op.db.from, to: op.db.to ?? end } },
      wanted: op.ending.kind === 'ok' ? op.ending.answer : undefined,
      required: op.ending.kind === 'ok',
    }));
}
