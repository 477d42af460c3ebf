/**
 * A case's history: every contract operation it drove, with its invocation and completion on one monotonic
 * clock (ms), the session and node it ran on, its arguments and its answer — the input of the
 * linearizability checker (docs/history-checker.md). An operation whose answer a fault swallowed (a crash,
 * a cut connection, a killed process) has no completion and no answer: it may have taken effect at any
 * point after its invocation, or never. What a call asks and an answer says are each contract's own types.
 */

/**
 * How an operation ended. `ok`: it answered. `aborted`: it certainly took no effect (the harness made it
 * roll back at a pause point). `unknown`: it may or may not have taken effect (a fault cut its answer, it
 * threw, or its process was killed).
 */
export type Ending<A> = { kind: 'ok'; answer: A } | { kind: 'aborted' } | { kind: 'unknown'; why: string };

/** One operation: `C`, `A` are its contract's calls and answers. */
export interface HistoryOperation<C, A> {
  /** Position in the case's history, in invocation order. */
  id: number;
  call: C;
  /** Which session and node ran it (`client-12`, `t1`, `job-2`, `final-read`; `node-1`). */
  session: string;
  node?: string | undefined;
  /** Harness clock, ms: when the call was sent and when its answer was in (null: never). */
  invokedAt: number;
  completedAt: number | null;
  /**
   * For an operation held at a pause point before any of its transactions committed (an interleaving's
   * `UNTIL after-read|before-commit|after-memory-before-ledger`): when the step that let it go on was sent.
   * Nothing of it committed before then.
   */
  resumedAt?: number;
  /**
   * The database clock, ms since the epoch, bounding when the operation ran there: from the case's
   * measured offset between the harness clock and clock_timestamp() (TTL and expiry are judged on the
   * database's clock). `to` is null while `completedAt` is.
   */
  db: { from: number; to: number | null };
  ending: Ending<A>;
}

export interface History<C, A> {
  operations: HistoryOperation<C, A>[];
  /** The stock the case started with: what `remaining` counts down from. */
  stock: readonly { sku: string; total: number }[];
}

/** How an operation ended, its answer told by `answer` (the contract's own description). */
export function describeEnding<A>(ending: Ending<A>, answer: (a: A) => string): string {
  if (ending.kind === 'ok') return answer(ending.answer);
  return ending.kind === 'aborted' ? 'rolled back' : `no answer (${ending.why})`;
}
