/**
 * What a reviewer reads when a history admits no order: a smallest set of its operations that still admits
 * none (delta debugging: drop operations while the rest stays unexplainable), each with its answer, and for
 * every operation whose answer alone is to blame, what the model answers there instead.
 */
import { type Answer, type Call, describeAnswer, describeCall, describeEnding } from './history.ts';
import { type SearchResult, searchLinearization } from './linearizability.ts';
import type { ModelOptions } from './model.ts';
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
}

type Trial = (operations: readonly SearchOperation[]) => SearchResult;

/** The request keys an operation names. */
function keysNamed(call: Call): readonly string[] {
  if (call.op === 'backdate') return call.requestKeys;
  return 'requestKey' in call ? [call.requestKey] : [];
}

/**
 * The keys an operation may have written ('every' for expire, which moves whichever keys expired). A
 * witness keeps each key's writers while it keeps an operation naming the key, so a stale REPLAY is shown
 * with the reserve and the confirm it ignored, not alone as a replay of a key never recorded.
 */
function keysWritten(s: SearchOperation): readonly string[] | 'every' {
  const { call } = s.op;
  if (call.op === 'expire') return 'every';
  if (call.op === 'status' || call.op === 'remaining' || call.op === 'disable') return [];
  return keysNamed(call);
}

/** An expire's answer counts whichever keys were HELD; a remaining read, every key of its sku. */
const readsEveryKey = (call: Call) => call.op === 'expire' || call.op === 'remaining';

/** Whether dropping `chunk` keeps the history of every key the rest names. */
function droppable(chunk: readonly SearchOperation[], rest: readonly SearchOperation[]): boolean {
  const named = new Set(rest.flatMap((s) => keysNamed(s.op.call)));
  const everyKey = rest.some((s) => readsEveryKey(s.op.call));
  return chunk.every((s) => {
    const written = keysWritten(s);
    if (written === 'every') return named.size === 0 && !everyKey;
    return everyKey ? written.length === 0 : written.every((k) => !named.has(k));
  });
}

/** Drops operations (halves, then smaller chunks) while what is left still admits no order. */
function shrink(
  operations: readonly SearchOperation[],
  admitsNone: (ops: readonly SearchOperation[]) => boolean,
) {
  let current = [...operations];
  let chunk = Math.max(1, Math.ceil(current.length / 2));
  for (;;) {
    let dropped = false;
    for (let start = 0; start < current.length; ) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)];
      const removed = current.slice(start, start + chunk);
      if (candidate.some((s) => s.required) && droppable(removed, candidate) && admitsNone(candidate)) {
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

/** The model's answer for operation `i` when its recorded answer is set aside, if that explains the rest. */
function answerInstead(
  operations: readonly SearchOperation[],
  i: number,
  explain: Trial,
): Answer | undefined {
  const target = operations[i];
  if (!target || target.wanted === undefined) return undefined;
  const relaxed = operations.map((s, j) =>
    j === i ? { ...s, wanted: undefined, required: true, deferred: true } : s,
  );
  const result = explain(relaxed);
  if (result.kind !== 'found') return undefined;
  return result.order.find((o) => o.id === target.op.id)?.answer;
}

export function minimalWitness(
  operations: readonly SearchOperation[],
  totals: ReadonlyMap<string, number>,
  model: ModelOptions,
  start: number,
): { summary: string; witness: WitnessLine[] } {
  const trial: Trial = (ops) => searchLinearization(ops, totals, { budget: TRIAL_BUDGET, model });
  const explain: Trial = (ops) =>
    searchLinearization(ops, totals, { budget: TRIAL_BUDGET, model: { ...model, withoutGaveUp: true } });
  const smallest = shrink(operations, (ops) => trial(ops).kind === 'none');
  const lines = smallest.map((s, i): WitnessLine => {
    const instead = answerInstead(smallest, i, explain);
    return {
      at: Math.round((s.op.invokedAt - start) * 10) / 10,
      session: s.op.session,
      node: s.op.node,
      call: describeCall(s.op.call),
      answer: describeEnding(s.op.ending),
      modelAnswers: instead ? describeAnswer(instead) : undefined,
    };
  });
  const blamed = lines.find((l) => l.modelAnswers !== undefined);
  const n = lines.length;
  const where = `these ${n} operation${n === 1 ? '' : 's'}`;
  const summary = blamed
    ? `${blamed.call} answered ${blamed.answer} at ${blamed.at} ms; no order of ${where} explains it (the model answers ${blamed.modelAnswers} there)`
    : `no order of ${where} gives every recorded answer`;
  return { summary, witness: lines };
}
