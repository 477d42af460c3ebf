/**
 * How the reservation contract's operations read in a witness (witness.ts), and which of them the
 * shrinking may drop: an operation that names a key keeps every writer of that key, so a stale REPLAY is
 * shown with the reserve and the confirm it ignored, not alone as a replay of a key never recorded.
 */

import type { SearchOperation } from '../../../history/search-operation.ts';
import type { WitnessView } from '../../../history/witness.ts';
import { RESERVATION_RULES } from './contract-rules.ts';
import type { TimedCall } from './model.ts';
import { type Answer, type Call, describeAnswer, describeCall } from './reservation-operations.ts';

/** The request keys an operation names. */
function keysNamed(call: Call): readonly string[] {
  if (call.op === 'backdate') return call.requestKeys;
  return 'requestKey' in call ? [call.requestKey] : [];
}

/** The keys an operation may have written ('every' for expire, which moves whichever keys expired). */
function keysWritten(s: SearchOperation<Call, Answer>): readonly string[] | 'every' {
  const { call } = s.op;
  if (call.op === 'expire') return 'every';
  if (call.op === 'status' || call.op === 'remaining' || call.op === 'disable') return [];
  return keysNamed(call);
}

/** An expire's answer counts whichever keys were HELD; a remaining read, every key of its sku. */
const readsEveryKey = (call: Call) => call.op === 'expire' || call.op === 'remaining';

/** Whether dropping `chunk` keeps the history of every key the rest names. */
function droppable(
  chunk: readonly SearchOperation<Call, Answer>[],
  rest: readonly SearchOperation<Call, Answer>[],
): boolean {
  const named = new Set(rest.flatMap((s) => keysNamed(s.op.call)));
  const everyKey = rest.some((s) => readsEveryKey(s.op.call));
  return chunk.every((s) => {
    const written = keysWritten(s);
    if (written === 'every') return named.size === 0 && !everyKey;
    return everyKey ? written.length === 0 : written.every((k) => !named.has(k));
  });
}

const isOutcome = (answer: Answer, outcome: string) => 'outcome' in answer && answer.outcome === outcome;

/**
 * A SOLD_OUT where the model sells a unit: the contract's way out for a design that refuses while units
 * remain (skips locked stock, shards it over nodes) is to say so, and the witness says how.
 */
function remedy(_call: Call, recorded: Answer, model: Answer): string | undefined {
  if (!isOutcome(recorded, 'SOLD_OUT') || !isOutcome(model, 'HELD')) return undefined;
  return 'SOLD_OUT while a unit remained: a design that may refuse while stock remains declares `falseSoldOut` (docs/contract.md), and the model then allows it (rule reserve.false-sold-out)';
}

export const RESERVATION_WITNESS_VIEW: WitnessView<Call, Answer, TimedCall> = {
  describeCall,
  describeAnswer,
  droppable,
  describeRule: (rule) => RESERVATION_RULES[rule as keyof typeof RESERVATION_RULES] ?? rule,
  remedy,
};
