/**
 * The `linearizable` check: is there an order of the case's operations, consistent with real time, in
 * which every answer is the contract model's answer? Each independent part of the history (partition.ts)
 * is searched alone (linearizability.ts). A part that admits no order is shrunk to a smallest set of
 * operations that still admits none, each shown with its answer and what the model answers instead
 * (witness.ts). A part the search could not finish within the budget leaves the history `unchecked`,
 * reported with the reason and never counted as checked.
 */
import type { History, HistoryOperation } from './history.ts';
import { type SearchOperation, searchLinearization } from './linearizability.ts';
import type { ModelOptions } from './model.ts';
import { partitionHistory } from './partition.ts';
import { minimalWitness, type WitnessLine } from './witness.ts';

/** Model transitions one case's search may take before its history is `unchecked (budget)`. */
export const DEFAULT_SEARCH_BUDGET = 2_000_000;

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

export interface CheckOptions {
  budget?: number;
  model?: ModelOptions;
}

/**
 * Operations the search takes: answered ones with their answer; unknown ones with any answer, optional,
 * their database clock open until the history's end (they can have taken effect no later than the
 * harness's last read); aborted ones left out.
 */
export function searchOperations(operations: readonly HistoryOperation[]): SearchOperation[] {
  const end = Math.max(0, ...operations.map((o) => o.db.to ?? o.db.from));
  return operations
    .filter((op) => op.ending.kind !== 'aborted')
    .map((op) => ({
      op,
      timed: { id: op.id, call: op.call, db: { from: op.db.from, to: op.db.to ?? end } },
      wanted: op.ending.kind === 'ok' ? op.ending.answer : undefined,
      required: op.ending.kind === 'ok',
    }));
}

export function checkHistory(history: History, options: CheckOptions = {}): HistoryVerdict {
  const began = performance.now();
  const budget = options.budget ?? DEFAULT_SEARCH_BUDGET;
  const model = options.model ?? {};
  const totals = new Map(history.stock.map((s) => [s.sku, s.total]));
  const parts = partitionHistory(history.operations, [...totals.keys()]);
  const base = { operations: history.operations.length, parts: parts.length };
  let steps = 0;
  for (const part of parts) {
    const searched = searchOperations(part);
    const result = searchLinearization(searched, totals, { budget: budget - steps, model });
    steps += result.steps;
    const ms = performance.now() - began;
    if (result.kind === 'budget') {
      const reason = `the search stopped after ${steps} model steps (budget ${budget}) on a part of ${part.length} operations`;
      return { status: 'unchecked', ...base, steps, ms, reason };
    }
    if (result.kind === 'none') {
      const start = Math.min(...history.operations.map((o) => o.invokedAt));
      const witness = minimalWitness(searched, totals, model, start);
      return { status: 'violation', ...base, steps, ms: performance.now() - began, ...witness };
    }
  }
  return { status: 'linearizable', ...base, steps, ms: performance.now() - began };
}
