/**
 * The seeded explorer, for a design of any contract: the sweep, the exhaustive scope (exhaustive.ts), then
 * random programs, each of the contract's own making (contract-explore.ts), each run on fresh tables under
 * its schedule and judged by every check of the contract, until one fails or the budget is spent. The sweep comes first because it is the cheapest: one batch for all
 * of a design's races, most negative controls' bugs among them.
 * A failing program is shrunk by fast-check — fewer sessions, fewer and simpler operations, a plainer
 * schedule — as long as it keeps failing, and the smallest one is the finding, written as a spec that
 * `reservebench run --spec FILE --strategy ID` replays. The same seed gives the same programs in the same
 * order, so a budget counted in programs explores the same paths on every machine.
 */
import fc from 'fast-check';
import type { ProgramRun, ScopeLanguage } from '../contract/contract-explore.ts';
import type { CaseResultBase, ExplorationSummary } from '../verdict/case-result.ts';
import {
  SCOPE_BATCH_SIZE,
  SCOPE_FIRST_BATCH_SIZE,
  SCOPE_MAX_LENGTH,
  SWEEP_BATCH_SIZE,
} from './explore-defaults.ts';
import {
  batchedPhase,
  dropKeptTables,
  type Explored,
  type ScopeBudget,
  type ScopeOutcome,
} from './scope-phase.ts';

export interface ExploreBudget {
  /** Programs of the exhaustive scope, shortest first, run after the sweep. */
  scope: number;
  /** Random programs to try after the sweep (the default run's budget: the same on every machine). */
  programs: number;
  /** Or: stop starting programs after this many ms (`explore --budget 60s`), whichever comes first. */
  ms?: number;
  /** Runs spent shrinking a failing program, at most. */
  shrinkRuns: number;
}

export interface Finding<C> {
  spec: string;
  result: C;
  /** Where it was found: `the exhaustive scope (batch ending at program 1200)`, `random program 3`. */
  foundAt: string;
}

/** The counts a case reports (ExplorationSummary), and what the case is made from. */
export interface Exploration<C> extends Omit<ExplorationSummary, 'spec' | 'reproduced'> {
  /** Programs that failed over and ran to their end (only with a cluster to fail over). */
  failedOver?: number;
  /** The failover program that broke or could not run, and why: it breaks the case (runFailover). */
  failoverBroken?: string;
  found?: Finding<C>;
  /** The last program run in full without a finding: what the case shows when nothing was found. */
  lastPassed?: C;
}

export interface ExploreProgress {
  programs: number;
  total: number;
  shrinking: boolean;
}

/**
 * The run the case will not show once `run` is in: the finding a smaller failing program replaces, the
 * last pass a newer one replaces, a shrink's pass, a broken run. Only the shown program's tables are kept.
 */
function unshownBy<C>(tally: Exploration<C>, run: ProgramRun<C>, shrinking: boolean): C | undefined {
  if (run.kind === 'fail') return tally.found?.result;
  if (run.kind === 'pass') return shrinking ? run.result : tally.lastPassed;
  return run.kind === 'broken' ? run.result : undefined;
}

/** A finding of a batched phase, its spec headed with what it is and how it replays. */
function batchFinding<R, C extends CaseResultBase, P>(
  r: Run<R, C, P>,
  what: string,
  found: NonNullable<ScopeOutcome<C, P>['found']>,
  at: number,
): Finding<C> {
  const foundAt = `${what} (batch ending at program ${at})`;
  const header = [
    `found by reservebench explore --strategy ${r.designId} --seed ${r.seed} (${foundAt})`,
    ...found.described.map((d) => `program: ${d}`),
    `replay: reservebench run --strategy ${r.designId} --spec THIS_FILE`,
  ];
  return { spec: r.explore.specText(found.program, header), result: found.result, foundAt };
}

interface Run<R, C extends CaseResultBase, P> extends Explored<R, C, P> {
  designId: string;
  budget: ExploreBudget;
  seed: number;
  tally: Exploration<C>;
  outOfTime(): boolean;
  header(program: number): string[];
  onProgress?: ((p: ExploreProgress) => void) | undefined;
}

/** A phase run in batches: its tally, its last pass (the one whose tables a --keep run keeps), its finding. */
async function runBatched<V, R, C extends CaseResultBase, P>(
  r: Run<R, C, P>,
  what: string,
  language: ScopeLanguage<V, P>,
  budget: ScopeBudget,
) {
  const phase = await batchedPhase(r, language, budget);
  r.tally.broken += phase.tally.broken;
  if (phase.lastPassed) {
    await dropKeptTables(r.db, r.tally.lastPassed);
    r.tally.lastPassed = phase.lastPassed;
  }
  if (phase.found) r.tally.found = batchFinding(r, what, phase.found, phase.tally.programs);
  return phase.tally;
}

/** The exhaustive scope, shortest programs first, as many as the budget says. */
async function runScope<R, C extends CaseResultBase, P>(r: Run<R, C, P>): Promise<void> {
  if (r.budget.scope <= 0) return;
  const budget = {
    programs: r.budget.scope,
    maxLength: SCOPE_MAX_LENGTH,
    batchSize: SCOPE_BATCH_SIZE,
    firstBatchSize: SCOPE_FIRST_BATCH_SIZE,
  };
  const language = r.explore.scope(r.ref);
  const began = performance.now();
  const tally = await runBatched(r, 'the exhaustive scope', language, { ...budget, outOfTime: r.outOfTime });
  r.tally.scope = { ...tally, ms: Math.round(performance.now() - began) };
}

/** The sweep, its programs one after another in batches (sweep-batches.ts). */
async function runSweep<R, C extends CaseResultBase, P>(r: Run<R, C, P>): Promise<void> {
  const language = r.explore.sweep?.(r.ref);
  if (!language) return;
  // One whole batch: every design runs its sweep to its end, and most controls are found in it.
  const budget = {
    programs: Number.POSITIVE_INFINITY,
    maxLength: 2,
    batchSize: SWEEP_BATCH_SIZE,
    firstBatchSize: SWEEP_BATCH_SIZE,
  };
  const swept = await runBatched(r, 'the sweep', language, { ...budget, outOfTime: r.outOfTime });
  r.tally.programs += swept.programs;
  r.tally.swept += swept.programs;
}

/**
 * The programs that fail over, one cluster each, one after another (no batches: each moves its own
 * cluster's primary). Only when the exploration was given a cluster. They are few and fixed, one per
 * operation that writes: one that broke or could not run in its order leaves that operation unjudged
 * across a failover, so it ends the exploration and breaks the case (a random program that breaks is
 * only counted: another takes its place).
 */
async function runFailover<R, C extends CaseResultBase, P>(r: Run<R, C, P>): Promise<void> {
  const programs = r.settings.failoverCluster ? (r.explore.failover?.(r.ref) ?? []) : [];
  r.tally.failedOver = 0;
  for (const [i, program] of programs.entries()) {
    if (r.outOfTime()) return;
    const foundAt = `failover program ${i + 1} of ${programs.length}`;
    const header = [
      `found by reservebench explore --cluster embedded --strategy ${r.designId} --seed ${r.seed} (${foundAt})`,
      `replay: reservebench explore replays it on a cluster of its own; THIS_FILE names its steps`,
    ];
    const run = await r.explore.run(r.db, r.ref, program, r.settings, header);
    if (run.kind === 'invalid' || run.kind === 'broken') {
      r.tally[run.kind] += 1;
      const why =
        run.kind === 'invalid'
          ? 'could not run in its order (invalid schedule)'
          : `broke: ${(run.result.problems ?? [run.result.boundary]).join('; ')}`;
      r.tally.failoverBroken = `${foundAt} ${why}`;
      return;
    }
    r.tally.failedOver += 1;
    if (run.kind === 'fail') {
      r.tally.found = { spec: run.spec, result: run.result, foundAt };
      return;
    }
    r.tally.lastPassed = run.result;
  }
}

async function runRandom<R, C extends CaseResultBase, P>(r: Run<R, C, P>): Promise<void> {
  const { tally, budget } = r;
  const property = fc.asyncProperty(r.explore.random(r.ref), async (program) => {
    const shrinking = tally.found !== undefined;
    if (shrinking ? tally.shrinks >= budget.shrinkRuns : r.outOfTime()) return true;
    if (shrinking) tally.shrinks += 1;
    else tally.programs += 1;
    r.onProgress?.({ programs: tally.programs, total: budget.programs, shrinking });
    const header = r.header(tally.programs - tally.swept);
    const run = await r.explore.run(r.db, r.ref, program, r.settings, header);
    await dropKeptTables(r.db, unshownBy(tally, run, shrinking));
    if (run.kind === 'invalid' || run.kind === 'broken') {
      if (!shrinking) tally[run.kind] += 1;
      return true;
    }
    if (run.kind === 'pass') {
      if (!shrinking) tally.lastPassed = run.result;
      return true;
    }
    tally.found = {
      spec: run.spec,
      result: run.result,
      foundAt: tally.found?.foundAt ?? `random program ${tally.programs - tally.swept}`,
    };
    return false;
  });
  await fc.check(property, { seed: r.seed, numRuns: budget.programs, endOnFailure: false });
}

export async function explore<R, C extends CaseResultBase, P>(
  explored: Explored<R, C, P> & { designId: string },
  options: { seed: number; budget: ExploreBudget; onProgress?: (p: ExploreProgress) => void },
): Promise<Exploration<C>> {
  const began = performance.now();
  const { budget, seed } = options;
  const { db, designId } = explored;
  const tally: Exploration<C> = { seed, programs: 0, swept: 0, invalid: 0, broken: 0, shrinks: 0, ms: 0 };
  const run: Run<R, C, P> = {
    ...explored,
    budget,
    seed,
    tally,
    outOfTime: () => budget.ms !== undefined && performance.now() - began > budget.ms,
    header: (program) => [
      `found by reservebench explore --strategy ${designId} --seed ${seed} (random program ${program})`,
      `replay: reservebench run --strategy ${designId} --spec THIS_FILE`,
    ],
    onProgress: options.onProgress,
  };
  for (const phase of [runSweep, runFailover, runScope, runRandom]) {
    if (tally.found || tally.failoverBroken) break;
    await phase(run);
  }
  // With a finding, or a broken case, the last program that passed is not shown: its tables (if kept) go.
  if (tally.found || tally.failoverBroken) await dropKeptTables(db, tally.lastPassed);
  return { ...tally, ms: Math.round(performance.now() - began) };
}
