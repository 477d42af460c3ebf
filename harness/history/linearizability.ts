/**
 * The linearizability search of Wing & Gong as refined by Lowe ("Testing for linearizability", 2017) and
 * Porcupine: the history's call and return events in one doubly linked list in time order; repeatedly take
 * a call that comes before every pending return (no operation that must precede it is pending), apply it
 * to the model with its recorded answer and lift it out of the list; when the first remaining event is a
 * return, nothing can come next: undo the last step and try the next call. A cache of (set of linearized
 * operations, model state) pairs already explored keeps any state from being searched twice.
 *
 * Cost: each step is one model transition; a history whose concurrent operations mostly commute (reserves
 * answered SOLD_OUT; HELDs of distinct keys that nothing reads until the end) is checked in about
 * n × (operations overlapping one another) steps. A history that admits no order can take time
 * exponential in its overlap: the search stops after `budget` steps and says so, never guessing.
 *
 * An operation with an unknown ending may take effect at any point after its invocation, with any answer
 * the model allows, or never; one that was aborted took none and is left out.
 */
import { ContractState } from './contract-state.ts';
import type { Answer, HistoryOperation } from './history.ts';
import { type ModelOptions, modelResults, type Result, sameAnswer, type TimedCall } from './model.ts';

export interface SearchOperation {
  op: HistoryOperation;
  timed: TimedCall;
  /** The answer it must have (undefined: any answer the model allows). */
  wanted?: Answer | undefined;
  /** It must take effect (an operation that answered); false where it may never have. */
  required: boolean;
}

export type SearchResult =
  | { kind: 'found'; steps: number; order: { id: number; answer: Answer }[] }
  | { kind: 'none'; steps: number }
  | { kind: 'budget'; steps: number };

interface Entry {
  index: number;
  call: boolean;
  match: Entry | undefined;
  prev: Entry | undefined;
  next: Entry | undefined;
}

/** The list head: calls and returns in time order, a call before a return at the same instant. */
function eventList(operations: readonly SearchOperation[]): Entry {
  const events: { at: number; entry: Entry }[] = [];
  operations.forEach((s, index) => {
    const ret: Entry = { index, call: false, match: undefined, prev: undefined, next: undefined };
    const call: Entry = { index, call: true, match: ret, prev: undefined, next: undefined };
    events.push({ at: s.op.invokedAt, entry: call });
    events.push({ at: s.op.completedAt ?? Number.POSITIVE_INFINITY, entry: ret });
  });
  events.sort((a, b) => a.at - b.at || Number(b.entry.call) - Number(a.entry.call));
  const head: Entry = { index: -1, call: false, match: undefined, prev: undefined, next: undefined };
  let last = head;
  for (const { entry } of events) {
    last.next = entry;
    entry.prev = last;
    last = entry;
  }
  return head;
}

function lift(entry: Entry): void {
  const unlink = (e: Entry) => {
    if (e.prev) e.prev.next = e.next;
    if (e.next) e.next.prev = e.prev;
  };
  unlink(entry);
  if (entry.match) unlink(entry.match);
}

function unlift(entry: Entry): void {
  const relink = (e: Entry) => {
    if (e.prev) e.prev.next = e;
    if (e.next) e.next.prev = e;
  };
  if (entry.match) relink(entry.match);
  relink(entry);
}

/** Seeded, so a search explores in the same order every run. */
function randomWords(n: number): Uint32Array {
  const words = new Uint32Array(n);
  let seed = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    words[i] = (t ^ (t >>> 14)) >>> 0;
  }
  return words;
}

/** The set of linearized operations as a bitset with an incremental hash, and the states seen with it. */
class Explored {
  private readonly bits: Uint32Array;
  private readonly salt: Uint32Array;
  private low = 0;
  private high = 0;
  private readonly seen = new Map<string, Uint32Array[]>();

  constructor(n: number) {
    this.bits = new Uint32Array((n + 31) >>> 5);
    this.salt = randomWords(2 * n);
  }

  toggle(i: number): void {
    this.bits[i >>> 5] = (this.bits[i >>> 5] ?? 0) ^ (1 << (i & 31));
    this.low = (this.low ^ (this.salt[2 * i] ?? 0)) >>> 0;
    this.high = (this.high ^ (this.salt[2 * i + 1] ?? 0)) >>> 0;
  }

  /** Records the current set with this state; false when the pair was explored before. */
  visit(fingerprint: string): boolean {
    const key = `${this.low}.${this.high}|${fingerprint}`;
    const same = this.seen.get(key);
    if (same?.some((b) => b.every((w, i) => w === this.bits[i]))) return false;
    if (same) same.push(this.bits.slice());
    else this.seen.set(key, [this.bits.slice()]);
    return true;
  }
}

interface Frame {
  entry: Entry;
  choice: number;
  undo: ReturnType<ContractState['apply']>;
  answer: Answer;
}

function resultsFor(state: ContractState, s: SearchOperation, options: ModelOptions): Result[] {
  const all = modelResults(state, s.timed, options, s.wanted);
  const { wanted } = s;
  return wanted === undefined ? all : all.filter((r) => sameAnswer(r.answer, wanted));
}

/** Searches an order of `operations` (one part of a history) that the model explains. */
export function searchLinearization(
  operations: readonly SearchOperation[],
  totals: ReadonlyMap<string, number>,
  options: { budget: number; model: ModelOptions },
): SearchResult {
  const head = eventList(operations);
  const state = new ContractState(totals);
  const explored = new Explored(operations.length);
  const stack: Frame[] = [];
  let required = operations.filter((s) => s.required).length;
  let steps = 0;
  let entry = head.next;
  let choice = 0;
  while (required > 0) {
    if (!entry) return { kind: 'none', steps };
    if (!entry.call) {
      const frame = stack.pop();
      if (!frame) return { kind: 'none', steps };
      state.apply(frame.undo);
      explored.toggle(frame.entry.index);
      unlift(frame.entry);
      if (operations[frame.entry.index]?.required) required += 1;
      entry = frame.entry;
      choice = frame.choice + 1;
      continue;
    }
    const s = operations[entry.index] as SearchOperation;
    const results = resultsFor(state, s, options.model);
    let lifted = false;
    for (let r = choice; r < results.length && !lifted; r++) {
      if (++steps > options.budget) return { kind: 'budget', steps };
      const result = results[r] as Result;
      const undo = state.apply(result.changes);
      explored.toggle(entry.index);
      if (explored.visit(state.fingerprint())) {
        stack.push({ entry, choice: r, undo, answer: result.answer });
        lift(entry);
        if (s.required) required -= 1;
        lifted = true;
      } else {
        explored.toggle(entry.index);
        state.apply(undo);
      }
    }
    entry = lifted ? head.next : entry.next;
    choice = 0;
  }
  const order = stack.map((f) => ({
    id: (operations[f.entry.index] as SearchOperation).op.id,
    answer: f.answer,
  }));
  return { kind: 'found', steps, order };
}
