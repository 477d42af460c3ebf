/**
 * Running the exhaustive scope cheaply: its programs, shortest first, packed into batches that run side by
 * side on one table set (a contract's language says which programs may share a batch and makes the batch
 * one program), so a program costs its own operations, not fresh tables, sessions and a final read of its
 * own. Batches grow: the first takes at most `firstBatchSize` programs, each later one at most as many as
 * ran before it, up to `batchSize` — so a bug among the first programs costs a small batch and its
 * halving, not a full one (QuickCheck grows its sizes the same way), while a budget run to its end costs a
 * few more batches of the same programs. A batch that passes passed every program in it. One that fails is
 * halved while a half still fails alone, down to the fewest programs that fail together — one, for all but
 * a bug that needs programs side by side (many holds due at once) — which is the finding. One that could
 * not be judged (broken, or its history past the checker's budget) is halved until every part is judged; a
 * single program that cannot be is counted broken. Generic: the contract gives the language, the caller
 * runs a program.
 */
import type { ScopeLanguage } from '../contract/contract-explore.ts';

/** How one run of a batch ended: `unjudged` when it ran but its history could not be checked. */
export type BatchVerdict = 'pass' | 'fail' | 'broken' | 'unjudged';

export interface ScopeTally {
  /** Scope programs run (each counted once, in the batch that first ran it). */
  programs: number;
  /** The longest length all of whose programs ran (0: none). */
  completeLength: number;
  /** Runs of batches, those that split a batch included. */
  batches: number;
  /** Programs that could not be judged even alone. */
  broken: number;
}

export interface ScopeOptions<P, R> {
  /** Most programs in one batch. */
  batchSize: number;
  /** Most programs in the first batch; each later one takes at most as many as ran before it. */
  firstBatchSize: number;
  /** Scope programs to run at most, shortest first. */
  budget: number;
  maxLength: number;
  run(program: P): Promise<{ verdict: BatchVerdict; result: R }>;
  /** Asked before each batch: stop starting batches. */
  outOfTime(): boolean;
  onBatch?(tally: ScopeTally): void;
}

export interface ScopeFinding<V, R> {
  programs: V[];
  result: R;
}

/**
 * How far the scope's programs were taken: per length, how many; the length of the first left out; the
 * longest taken; whether taking ended (the budget or the scope ran out), and not a finding or the time.
 */
interface Taken {
  byLength: Map<number, number>;
  firstLeftOut: number;
  longest: number;
  ended: boolean;
}

/** Most programs the next batch of `group` takes, `yielded` programs having been batched before it. */
function batchLimit<V>(
  language: ScopeLanguage<V, unknown>,
  options: ScopeOptions<unknown, unknown>,
  group: string,
  yielded: number,
): number {
  const grown = Math.max(options.firstBatchSize, yielded);
  return Math.min(options.batchSize, grown, language.largestBatch?.(group) ?? options.batchSize);
}

/** The scope's programs, at most `budget`, in growing batches of one group each, in order. */
function* batches<V>(
  language: ScopeLanguage<V, unknown>,
  options: ScopeOptions<unknown, unknown>,
  taken: Taken,
) {
  const open = new Map<string, V[]>();
  let count = 0;
  let yielded = 0;
  for (const program of language.programs(options.maxLength)) {
    const length = language.length(program);
    if (count >= options.budget) {
      taken.firstLeftOut = length;
      break;
    }
    count += 1;
    taken.byLength.set(length, (taken.byLength.get(length) ?? 0) + 1);
    taken.longest = length;
    const group = language.groupOf(program);
    const members = open.get(group) ?? [];
    members.push(program);
    open.set(group, members);
    if (members.length >= batchLimit(language, options, group, yielded)) {
      open.delete(group);
      yielded += members.length;
      yield members;
    }
  }
  taken.ended = true;
  yield* open.values();
}

const halves = <V>(vs: readonly V[]): [V[], V[]] => [
  vs.slice(0, Math.ceil(vs.length / 2)),
  vs.slice(Math.ceil(vs.length / 2)),
];

class Exhaustion<V, P, R> {
  readonly tally: ScopeTally = { programs: 0, completeLength: 0, batches: 0, broken: 0 };
  found?: ScopeFinding<V, R>;

  constructor(
    private readonly language: ScopeLanguage<V, P>,
    private readonly options: ScopeOptions<P, R>,
  ) {}

  async runBatch(vs: readonly V[]): Promise<{ verdict: BatchVerdict; result: R }> {
    this.tally.batches += 1;
    return await this.options.run(this.language.batch(vs));
  }

  /** A failing batch halved while a half fails alone: the fewest programs that fail together. */
  async smallestFailing(vs: V[], result: R): Promise<ScopeFinding<V, R>> {
    let finding = { programs: vs, result };
    while (finding.programs.length > 1) {
      let smaller: ScopeFinding<V, R> | undefined;
      for (const half of halves(finding.programs)) {
        const run = await this.runBatch(half);
        if (run.verdict === 'fail') {
          smaller = { programs: half, result: run.result };
          break;
        }
      }
      if (!smaller) break;
      finding = smaller;
    }
    return finding;
  }

  /** Runs the batch; a part that could not be judged is halved until it can be, or is one program. */
  async settle(vs: V[]): Promise<void> {
    const run = await this.runBatch(vs);
    if (run.verdict === 'pass') return;
    if (run.verdict === 'fail') {
      this.found = await this.smallestFailing(vs, run.result);
      return;
    }
    if (vs.length === 1) {
      this.tally.broken += 1;
      return;
    }
    for (const half of halves(vs)) {
      if (this.found) return;
      await this.settle(half);
    }
  }
}

/**
 * The longest length every program of which ran: all were taken (a longer one was, or taking ended: a
 * finding may stop it midway through a length), and every one taken ran.
 */
function completeLength(taken: Taken, ran: Map<number, number>): number {
  let complete = 0;
  for (let n = 1; n < taken.firstLeftOut && (taken.byLength.get(n) ?? 0) > 0; n++) {
    if (ran.get(n) !== taken.byLength.get(n) || (n === taken.longest && !taken.ended)) break;
    complete = n;
  }
  return complete;
}

/** Runs the scope until its budget, its time or a finding ends it. */
export async function exhaust<V, P, R>(
  language: ScopeLanguage<V, P>,
  options: ScopeOptions<P, R>,
): Promise<{ tally: ScopeTally; found?: ScopeFinding<V, R> }> {
  const exhaustion = new Exhaustion(language, options);
  const ran = new Map<number, number>();
  const taken: Taken = {
    byLength: new Map(),
    firstLeftOut: Number.POSITIVE_INFINITY,
    longest: 0,
    ended: false,
  };
  for (const members of batches(language, options, taken)) {
    if (options.outOfTime()) break;
    await exhaustion.settle(members);
    exhaustion.tally.programs += members.length;
    for (const p of members) ran.set(language.length(p), (ran.get(language.length(p)) ?? 0) + 1);
    options.onBatch?.(exhaustion.tally);
    if (exhaustion.found) break;
  }
  exhaustion.tally.completeLength = completeLength(taken, ran);
  return { tally: exhaustion.tally, ...(exhaustion.found ? { found: exhaustion.found } : {}) };
}
