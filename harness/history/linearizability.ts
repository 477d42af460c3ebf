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
 *
 * The model is a parameter (search-model.ts): one search for every contract, never one copy per contract.
 */
import type { ModelResult, ModelState, SearchModel } from './search-model.ts';
import type { SearchOperation } from './search-operation.ts';

export type SearchResult<A> =
  | { kind: 'found'; steps: number; order: { id: number; answer: A; rule?: string | undefined }[] }
  | { kind: 'none'; steps: number }
  | { kind: 'budget'; steps: number };

/** Any contract's model, as the search takes it: its changes and state are the model's own business. */
type AnyModel<C, A, T> = SearchModel<C, A, T, unknown, ModelState<unknown>>;

interface Entry {
  index: number;
  call: boolean;
  match: Entry | undefined;
  prev: Entry | undefined;
  next: Entry | undefined;
}

/** The list head: calls and returns in time order, a call before a return at the same instant. */
function eventList<C, A, T>(operations: readonly SearchOperation<C, A, T>[]): Entry {
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

interface Frame<A> {
  entry: Entry;
  /** Which candidate and which of its model results this step took, to try the next on backtracking. */
  candidate: number;
  choice: number;
  undo: unknown[];
  /** The model's answer it was placed with, and the contract rule that gives it. */
  placed: { answer: A; rule?: string | undefined };
  /** Taken without a choice (a read that fits now): on backtracking there is nothing else to try here. */
  forced: boolean;
}

/**
 * A call whose recorded answer changes nothing in any state (a status or remaining read, a REPLAY, a
 * refusal, a confirm that did not move, an expire of 0 units) and that the model gives right now: it can
 * be placed now without loss of generality, since moving it to the front of any order that completes the
 * search keeps every answer and every real-time constraint. So the search takes it without making it a
 * choice to revisit — a partial-order reduction that keeps reads from multiplying the orders tried. Not
 * what the model says may not be (a model's backdate of a hold: it answers the same whatever it changes).
 */
function forcedRead<C, A, T>(
  next: readonly Entry[],
  operations: readonly SearchOperation<C, A, T>[],
  model: AnyModel<C, A, T>,
  state: ModelState<unknown>,
  meter: Meter,
): { entry: Entry; result: ModelResult<A, unknown> } | undefined {
  for (const entry of next) {
    const s = operations[entry.index] as SearchOperation<C, A, T>;
    if (!s.required || s.deferred || model.placedAtOnce?.(s.timed) === false) continue;
    meter.steps += 1;
    const result = resultsFor(model, state, s).find((r) => r.changes.length === 0);
    if (result) return { entry, result };
  }
  return undefined;
}

/** Model transitions computed so far: what the budget counts. */
interface Meter {
  steps: number;
}

/**
 * The calls that may come next: those before the first pending return. The order they are tried in only
 * decides how soon an order is found, never whether: the call of that first return first (Lowe's
 * just-in-time order: what must take effect soonest goes first, so reads that fit at many points are
 * placed as late as they can be), then the other answered calls, and calls that may never have taken
 * effect last — they are placed only when nothing else fits.
 */
function candidates<C, A, T>(head: Entry, operations: readonly SearchOperation<C, A, T>[]): Entry[] {
  const due: Entry[] = [];
  const answered: Entry[] = [];
  const optional: Entry[] = [];
  let entry = head.next;
  for (; entry?.call; entry = entry.next) {
    const s = operations[entry.index] as SearchOperation<C, A, T>;
    (!s.required || s.deferred ? optional : answered).push(entry);
  }
  const first = entry;
  const at = answered.findIndex((c) => c.match === first);
  if (at >= 0) due.push(...answered.splice(at, 1));
  return [...due, ...answered, ...optional];
}

/**
 * The model's results that fit the operation: its recorded answer's; for one that may never have taken
 * effect, only results that change something (one that changes nothing is the same as never).
 */
function resultsFor<C, A, T>(
  model: AnyModel<C, A, T>,
  state: ModelState<unknown>,
  s: SearchOperation<C, A, T>,
): ModelResult<A, unknown>[] {
  const all = model.results(state, s.timed, s.wanted);
  const { wanted } = s;
  if (wanted !== undefined) return all.filter((r) => model.sameAnswer(r.answer, wanted));
  return s.required ? all : all.filter((r) => r.changes.length > 0);
}

/** Searches an order of `operations` (one part of a history) that the model explains. */
export function searchLinearization<C, A, T>(
  operations: readonly SearchOperation<C, A, T>[],
  model: AnyModel<C, A, T>,
  budget: number,
): SearchResult<A> {
  if (model.refuted?.(operations)) return { kind: 'none', steps: 0 };
  const head = eventList(operations);
  const state = model.start();
  const explored = new Explored(operations.length);
  const stack: Frame<A>[] = [];
  let required = operations.filter((s) => s.required).length;
  const meter: Meter = { steps: 0 };
  let resume = { candidate: 0, choice: 0 };
  while (required > 0) {
    if (meter.steps > budget) return { kind: 'budget', steps: meter.steps };
    const next = candidates(head, operations);
    const read =
      resume.candidate === 0 && resume.choice === 0
        ? forcedRead(next, operations, model, state, meter)
        : undefined;
    if (read) {
      explored.toggle(read.entry.index);
      stack.push({ entry: read.entry, candidate: 0, choice: 0, undo: [], placed: read.result, forced: true });
      lift(read.entry);
      required -= 1;
      continue;
    }
    let taken: Frame<A> | undefined;
    for (let c = resume.candidate; c < next.length && !taken; c++) {
      const entry = next[c] as Entry;
      const s = operations[entry.index] as SearchOperation<C, A, T>;
      meter.steps += 1;
      const results = resultsFor(model, state, s);
      for (let r = c === resume.candidate ? resume.choice : 0; r < results.length && !taken; r++) {
        const result = results[r] as ModelResult<A, unknown>;
        const undo = state.apply(result.changes);
        explored.toggle(entry.index);
        if (explored.visit(state.fingerprint())) {
          taken = { entry, candidate: c, choice: r, undo, placed: result, forced: false };
        } else {
          explored.toggle(entry.index);
          state.apply(undo);
        }
      }
    }
    if (taken) {
      stack.push(taken);
      lift(taken.entry);
      if (operations[taken.entry.index]?.required) required -= 1;
      resume = { candidate: 0, choice: 0 };
      continue;
    }
    let frame = stack.pop();
    for (; frame?.forced; frame = stack.pop()) {
      explored.toggle(frame.entry.index);
      unlift(frame.entry);
      required += 1;
    }
    if (!frame) return { kind: 'none', steps: meter.steps };
    state.apply(frame.undo);
    explored.toggle(frame.entry.index);
    unlift(frame.entry);
    if (operations[frame.entry.index]?.required) required += 1;
    resume = { candidate: frame.candidate, choice: frame.choice + 1 };
  }
  const order = stack.map((f) => ({
    id: (operations[f.entry.index] as SearchOperation<C, A, T>).op.id,
    answer: f.placed.answer,
    rule: f.placed.rule,
  }));
  return { kind: 'found', steps: meter.steps, order };
}
