/**
 * The `linearizable` check of any contract's history, part by part: each independent part (a sku and what
 * joins it, a key) is searched alone by the one search (linearizability.ts) under
 * the contract's model; a part that admits no order is shrunk to a smallest witness (witness.ts), and a
 * search past its budget leaves the history `unchecked`, reported with the reason, never counted checked.
 */
import { searchLinearization } from './linearizability.ts';
import type { ModelState, SearchModel } from './search-model.ts';
import type { SearchOperation } from './search-operation.ts';
import { minimalWitness, type WitnessLine, type WitnessView } from './witness.ts';

/** Model transitions one case's search may take before its history is `unchecked (budget)`. */
const DEFAULT_SEARCH_BUDGET = 100_000;

/** What any contract's history check answers. */
export type HistoryVerdict =
  | { status: 'linearizable'; operations: number; parts: number; steps: number; ms: number }
  | {
      status: 'violation';
      operations: number;
      parts: number;
      steps: number;
      ms: number;
      /** One line: the first witness operation and what the model allows instead. */
      summary: string;
      witness: WitnessLine[];
    }
  | { status: 'unchecked'; operations: number; parts: number; steps: number; ms: number; reason: string };

// biome-ignore lint/suspicious/noExplicitAny: a model's change and state types are its own
type AnyModel<C, A, T> = SearchModel<C, A, T, any, ModelState<any>>;

/** A contract's model as the check searches with it, and how its witness reads. */
export interface PartsModel<C, A, T> {
  /** The model the search takes. */
  model: AnyModel<C, A, T>;
  /** The model a witness explains with: the same without answers allowed at any time (GAVE_UP). */
  explain: AnyModel<C, A, T>;
  view: WitnessView<C, A, T>;
  /** How the budget's line names a part: `a part`, `a key`. */
  part: string;
}

/** One part as the search takes it, and how many operations of the history it holds. */
export interface SearchedPart<C, A, T> {
  searched: readonly SearchOperation<C, A, T>[];
  size: number;
}

export function checkParts<C, A, T>(
  parts: readonly SearchedPart<C, A, T>[],
  history: { operations: number; start: number },
  models: PartsModel<C, A, T>,
  budget = DEFAULT_SEARCH_BUDGET,
): HistoryVerdict {
  const began = performance.now();
  const base = { operations: history.operations, parts: parts.length };
  let steps = 0;
  for (const { searched, size } of parts) {
    const result = searchLinearization(searched, models.model, budget - steps);
    steps += result.steps;
    if (result.kind === 'budget') {
      const reason = `the search stopped after ${steps} model steps (budget ${budget}) on ${models.part} of ${size} operations`;
      return { status: 'unchecked', ...base, steps, ms: performance.now() - began, reason };
    }
    if (result.kind === 'none') {
      const witnessModels = { trial: models.model, explain: models.explain };
      const witness = minimalWitness(searched, witnessModels, models.view, history.start);
      return { status: 'violation', ...base, steps, ms: performance.now() - began, ...witness };
    }
  }
  return { status: 'linearizable', ...base, steps, ms: performance.now() - began };
}
