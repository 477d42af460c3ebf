/**
 * The seeded explorer: the sweep (sweep.ts, in batches: sweep-batches.ts), the exhaustive scope
 * (exhaustive.ts, reservation/scope-programs.ts), then random programs (program-arbitrary.ts) for one
 * design, each run on fresh tables under its schedule and judged by every check (run-program.ts), until
 * one fails or the budget is spent. The sweep comes first because it is the cheapest: one batch for all
 * of a design's races, most negative controls' bugs among them.
 * A failing program is shrunk by fast-check — fewer sessions, fewer and simpler operations, a plainer
 * schedule — as long as it keeps failing, and the smallest one is the finding, written as a spec that
 * `reservebench run --spec FILE --strategy ID` replays. The same seed gives the same programs in the same
 * order, so a budget counted in programs explores the same paths on every machine.
 */
import fc from 'fast-check';
import type { StrategyRef } from '../../strategies/contract.ts';
import type { CaseSettings } from '../contract/case-settings.ts';
import type { CaseResult } from '../contracts/reservation/verdict/case-result.ts';
import type { RunDatabase } from '../database/database.ts';
import type { ExplorationSummary } from '../verdict/case-result.ts';
import type { ScopeLanguage } from './exhaustive.ts';
import { SCOPE_BATCH_SIZE, SCOPE_MAX_LENGTH, SWEEP_BATCH_SIZE } from './explore-defaults.ts';
import { type Program, specText } from './program.ts';
import { MAX_SESSIONS, programArbitrary } from './program-arbitrary.ts';
import { reservationScope, SCOPE_SESSIONS } from './reservation/scope-programs.ts';
import { type ProgramRun, runProgram } from './run-program.ts';
import { batchedPhase, dropKeptTables, type ScopeBudget, type ScopeOutcome } from './scope-phase.ts';
import { sweepLanguage } from './sweep-batches.ts';

/** The sessions one program of any phase opens at most (the lanes' connection room). */
export const EXPLORE_SESSIONS = Math.max(MAX_SESSIONS, SCOPE_SESSIONS);

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

export interface Finding {
  program: Program;
  spec: string;
  result: CaseResult;
  /** Where it was found: `the exhaustive scope (batch ending at program 1200)`, `random program 3`. */
  foundAt: string;
}

/** The counts a case reports (ExplorationSummary), and what the case is made from. */
export interface Exploration extends Omit<ExplorationSummary, 'spec' | 'reproduced'> {
  found?: Finding;
  /** The last program run in full without a finding: what the case shows when nothing was found. */
  lastPassed?: CaseResult;
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
function unshownBy(tally: Exploration, run: ProgramRun, shrinking: boolean): CaseResult | undefined {
  if (run.kind === 'fail') return tally.found?.result;
  if (run.kind === 'pass') return shrinking ? run.result : tally.lastPassed;
  return run.kind === 'broken' ? run.result : undefined;
}

/** A finding of a batched phase, its spec headed with what it is and how it replays. */
function batchFinding(r: Run, what: string, found: NonNullable<ScopeOutcome['found']>, at: number) {
  const { id } = r.ref.strategy;
  const foundAt = `${what} (batch ending at program ${at})`;
  const header = [
    `found by reservebench explore --strategy ${id} --seed ${r.seed} (${foundAt})`,
    ...found.described.map((d) => `program: ${d}`),
    `replay: reservebench run --strategy ${id} --spec THIS_FILE`,
  ];
  return { program: found.program, spec: specText(found.program, header), result: found.result, foundAt };
}

interface Run {
  db: RunDatabase;
  ref: StrategyRef;
  settings: CaseSettings;
  budget: ExploreBudget;
  seed: number;
  tally: Exploration;
  outOfTime(): boolean;
  header(program: number): string[];
  onProgress?: ((p: ExploreProgress) => void) | undefined;
}

/** A phase run in batches: its tally, its last pass (the one whose tables a --keep run keeps), its finding. */
async function runBatched<V>(r: Run, what: string, language: ScopeLanguage<V, Program>, budget: ScopeBudget) {
  const phase = await batchedPhase(r.db, r.ref, r.settings, language, budget);
  r.tally.broken += phase.tally.broken;
  if (phase.lastPassed) {
    await dropKeptTables(r.db, r.tally.lastPassed);
    r.tally.lastPassed = phase.lastPassed;
  }
  if (phase.found) r.tally.found = batchFinding(r, what, phase.found, phase.tally.programs);
  return phase.tally;
}

/** The exhaustive scope, shortest programs first, as many as the budget says. */
async function runScope(r: Run): Promise<void> {
  if (r.budget.scope <= 0) return;
  const budget = { programs: r.budget.scope, maxLength: SCOPE_MAX_LENGTH, batchSize: SCOPE_BATCH_SIZE };
  const language = reservationScope(r.ref.strategy);
  const began = performance.now();
  const tally = await runBatched(r, 'the exhaustive scope', language, { ...budget, outOfTime: r.outOfTime });
  r.tally.scope = { ...tally, ms: Math.round(performance.now() - began) };
}

/** The sweep, its programs one after another in batches (sweep-batches.ts). */
async function runSweep(r: Run): Promise<void> {
  const budget = { programs: Number.POSITIVE_INFINITY, maxLength: 2, batchSize: SWEEP_BATCH_SIZE };
  const language = sweepLanguage(r.ref.strategy);
  const swept = await runBatched(r, 'the sweep', language, { ...budget, outOfTime: r.outOfTime });
  r.tally.programs += swept.programs;
  r.tally.swept += swept.programs;
}

async function runRandom(r: Run): Promise<void> {
  const { tally, budget } = r;
  const property = fc.asyncProperty(programArbitrary(r.ref.strategy), async (program) => {
    const shrinking = tally.found !== undefined;
    if (shrinking ? tally.shrinks >= budget.shrinkRuns : r.outOfTime()) return true;
    if (shrinking) tally.shrinks += 1;
    else tally.programs += 1;
    r.onProgress?.({ programs: tally.programs, total: budget.programs, shrinking });
    const run: ProgramRun = await runProgram(
      r.db,
      r.ref,
      program,
      r.settings,
      r.header(tally.programs - tally.swept),
    );
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
      program,
      spec: run.spec,
      result: run.result,
      foundAt: tally.found?.foundAt ?? `random program ${tally.programs - tally.swept}`,
    };
    return false;
  });
  await fc.check(property, { seed: r.seed, numRuns: budget.programs, endOnFailure: false });
}

export async function explore(
  db: RunDatabase,
  ref: StrategyRef,
  settings: CaseSettings,
  options: { seed: number; budget: ExploreBudget; onProgress?: (p: ExploreProgress) => void },
): Promise<Exploration> {
  const began = performance.now();
  const { budget, seed } = options;
  const tally: Exploration = { seed, programs: 0, swept: 0, invalid: 0, broken: 0, shrinks: 0, ms: 0 };
  const run: Run = {
    db,
    ref,
    settings,
    budget,
    seed,
    tally,
    outOfTime: () => budget.ms !== undefined && performance.now() - began > budget.ms,
    header: (program) => [
      `found by reservebench explore --strategy ${ref.strategy.id} --seed ${seed} (random program ${program})`,
      `replay: reservebench run --strategy ${ref.strategy.id} --spec THIS_FILE`,
    ],
    onProgress: options.onProgress,
  };
  for (const phase of [runSweep, runScope, runRandom]) {
    if (tally.found) break;
    await phase(run);
  }
  // With a finding, the last program that passed is not shown either: its tables (if kept) go.
  if (tally.found) await dropKeptTables(db, tally.lastPassed);
  return { ...tally, ms: Math.round(performance.now() - began) };
}
