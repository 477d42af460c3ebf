/**
 * What the linearizability search (linearizability.ts) and its witness (witness.ts) need of a contract's
 * sequential model, so that one search checks every contract: a state that applies changes and undoes
 * them, with a fingerprint to cache explored states by; every answer the model allows for a call in a
 * state, each with its changes; and how a model answer is compared with a recorded one. Each contract's
 * model is in its own folder.
 */
import type { SearchOperation } from './search-operation.ts';

export interface ModelState<Change> {
  /** Applies the changes; returns the changes that undo them, in the order to apply. */
  apply(changes: readonly Change[]): Change[];
  /** Equal states have equal fingerprints (a collision could only skip an order, never accept one). */
  fingerprint(): string;
}

export interface ModelResult<A, Change> {
  answer: A;
  changes: Change[];
  /**
   * The contract rule that gives this answer (an id of the contract's rule table in docs/contract.md), so
   * a witness can say which line of the contract the model applied.
   */
  rule?: string;
}

export interface SearchModel<C, A, T, Change, State extends ModelState<Change>> {
  /** The state before the history's first operation. */
  start(): State;
  /**
   * Every answer the contract allows for the operation in `state`, each with its changes; `wanted` may
   * narrow them to one answer's (the checker passes the recorded one; diagnostics pass none).
   */
  results(state: State, timed: T, wanted: A | undefined): ModelResult<A, Change>[];
  /** Whether a recorded answer is the model's answer. */
  sameAnswer(model: A, recorded: A): boolean;
  /**
   * False for an operation whose result that changes nothing must not be placed at once (a call that
   * answers the same whatever it changes); every other one may be (linearizability.ts, forcedRead).
   */
  placedAtOnce?(timed: T): boolean;
  /** A quick proof, before any search, that the operations admit no order (sound: never a false one). */
  refuted?(operations: readonly SearchOperation<C, A, T>[]): boolean;
}
