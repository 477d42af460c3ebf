/**
 * What a reviewer reads when a history admits no order: a smallest set of its operations that still admits
 * none (delta debugging: drop operations while the rest stays unexplainable), each with its answer, and for
 * every operation whose answer alone is to blame, what the model answers there instead. The contract's
 * model and how its operations read (`WitnessView`) are parameters, as the search's model is.
 */
import { describeEnding } from './history.ts';
import { type SearchResult, searchLinearization } from './linearizability.ts';
import type { ModelState, SearchModel } from './search-model.ts';
import type { SearchOperation } from './search-operation.ts';

/** Model steps each trial search of the shrinking may take (a trial past it keeps the operation). */
const TRIAL_BUDGET = 50_000;

export interface WitnessLine {
  /** ms since the case's first operation, at invocation. */
  at: number;
  session: string;
  node?: string | undefined;
  call: string;
  answer: string;
  /** What the model answers for this operation in an order of the others, when its answer is to blame. */
  modelAnswers?: string | undefined;
  /** The contract rule (docs/contract.md) that gives the model's answer there. */
  rule?: string | undefined;
}

/** How a contract's operations read in a witness, and which of them the shrinking may drop. */
export interface WitnessView<C, A, T> {
  describeCall(call: C): string;
  describeAnswer(answer: A): string;
  /**
   * Whether dropping `chunk` keeps what `rest` needs to be read right: the writers of every key it names
   * (a stale answer is shown with the writes it ignored, not alone as an answer about nothing).
   */
  droppable(chunk: readonly SearchOperation<C, A, T>[], rest: readonly SearchOperation<C, A, T>[]): boolean;
  /** The text of a contract rule the model tags its answers with (docs/contract.md states it). */
  describeRule(rule: string): string;
  /**
   * What the design can do about a disagreement, where the contract offers something (a declaration that
   * covers it): the recorded answer and the model's instead.
   */
  remedy?(call: C, recorded: A, model: A): string | undefined;
}

/** The models a witness searches with: the checker's, and one without always-allowed answers (GAVE_UP). */
export interface WitnessModels<C, A, T> {
  trial: SearchModel<C, A, T, unknown, ModelState<unknown>>;
  /**
   * Explains what the model answers instead: an answer always allowed would otherwise always be the
   * explanation.
   */
  explain: SearchModel<C, A, T, unknown, ModelState<unknown>>;
}

/** Drops operations (halves, then smaller chunks) while what is left still admits no order. */
function shrink<C, A, T>(
  operations: readonly SearchOperation<C, A, T>[],
  view: WitnessView<C, A, T>,
  admitsNone: (ops: readonly SearchOperation<C, A, T>[]) => boolean,
) {
  let current = [...operations];
  let chunk = Math.max(1, Math.ceil(current.length / 2));
  for (;;) {
    let dropped = false;
    for (let start = 0; start < current.length; ) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)];
      const removed = current.slice(start, start + chunk);
      if (candidate.some((s) => s.required) && view.droppable(removed, candidate) && admitsNone(candidate)) {
        current = candidate;
        dropped = true;
      } else {
        start += chunk;
      }
    }
    if (chunk === 1 && !dropped) return current;
    if (!dropped) chunk = Math.max(1, Math.floor(chunk / 2));
  }
}

/**
 * The model's answer for operation `i` when its recorded answer is set aside, if that explains the rest,
 * with the contract rule that gives it.
 */
function answerInstead<C, A, T>(
  operations: readonly SearchOperation<C, A, T>[],
  i: number,
  explain: (ops: readonly SearchOperation<C, A, T>[]) => SearchResult<A>,
): { answer: A; rule?: string | undefined } | undefined {
  const target = operations[i];
  if (!target || target.wanted === undefined) return undefined;
  const relaxed = operations.map((s, j) =>
    j === i ? { ...s, wanted: undefined, required: true, deferred: true } : s,
  );
  const result = explain(relaxed);
  if (result.kind !== 'found') return undefined;
  return result.order.find((o) => o.id === target.op.id);
}

/** The summary's explanation of a blamed line: the model's answer, the rule behind it, the remedy. */
function blame<C, A, T>(
  line: WitnessLine,
  instead: { answer: A; rule?: string | undefined },
  s: SearchOperation<C, A, T>,
  view: WitnessView<C, A, T>,
): string {
  const rule =
    instead.rule === undefined
      ? ''
      : ` by the contract's rule ${instead.rule}: ${view.describeRule(instead.rule)}`;
  const remedy = s.wanted === undefined ? undefined : view.remedy?.(s.op.call, s.wanted, instead.answer);
  return `the model answers ${line.modelAnswers} there${rule}${remedy ? `; ${remedy}` : ''}`;
}

export function minimalWitness<C, A, T>(
  operations: readonly SearchOperation<C, A, T>[],
  models: WitnessModels<C, A, T>,
  view: WitnessView<C, A, T>,
  start: number,
): { summary: string; witness: WitnessLine[] } {
  const trial = (ops: readonly SearchOperation<C, A, T>[]) =>
    searchLinearization(ops, models.trial, TRIAL_BUDGET);
  const explain = (ops: readonly SearchOperation<C, A, T>[]) =>
    searchLinearization(ops, models.explain, TRIAL_BUDGET);
  const smallest = shrink(operations, view, (ops) => trial(ops).kind === 'none');
  const explained = smallest.map((s, i) => {
    const instead = answerInstead(smallest, i, explain);
    const line: WitnessLine = {
      at: Math.round((s.op.invokedAt - start) * 10) / 10,
      session: s.op.session,
      node: s.op.node,
      call: view.describeCall(s.op.call),
      answer: describeEnding(s.op.ending, (a) => view.describeAnswer(a)),
      modelAnswers: instead === undefined ? undefined : view.describeAnswer(instead.answer),
      rule: instead?.rule,
    };
    return { line, instead, s };
  });
  const blamed = explained.find((e) => e.instead !== undefined);
  const n = smallest.length;
  const where = `these ${n} operation${n === 1 ? '' : 's'}`;
  const summary =
    blamed?.instead !== undefined
      ? `${blamed.line.call} answered ${blamed.line.answer} at ${blamed.line.at} ms; no order of ${where} explains it (${blame(blamed.line, blamed.instead, blamed.s, view)})`
      : `no order of ${where} gives every recorded answer`;
  return { summary, witness: explained.map((e) => e.line) };
}
