/**
 * The seeded explorer: the sweep (sweep.ts), then random programs (program-arbitrary.ts) for one design, each run on fresh tables
 * under its schedule and judged by every check (run-program.ts), until one fails or the budget is spent.
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
import type { Program } from './program.ts';
import { programArbitrary } from './program-arbitrary.ts';
import { type ProgramRun, runProgram } from './run-program.ts';
import { sweepPrograms } from './sweep.ts';

export interface ExploreBudget {
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
  /** Which program (1-based) first failed, before shrinking. */
  foundAt: number;
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

/** Drops the tables a program's run kept (a failing or broken one's; any one's with --keep). */
async function dropKeptTables(db: RunDatabase, result: CaseResult | undefined): Promise<void> {
  const schema = result && 'keptSchema' in result ? result.keptSchema : undefined;
  if (schema) await db.dropCaseSchema(schema);
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

export async function explore(
  db: RunDatabase,
  ref: StrategyRef,
  settings: CaseSettings,
  options: { seed: number; budget: ExploreBudget; onProgress?: (p: ExploreProgress) => void },
): Promise<Exploration> {
  const began = performance.now();
  const { budget } = options;
  const tally: Exploration = {
    seed: options.seed,
    programs: 0,
    swept: 0,
    invalid: 0,
    broken: 0,
    shrinks: 0,
    ms: 0,
  };
  const outOfTime = () => budget.ms !== undefined && performance.now() - began > budget.ms;
  // With a finding, the last program that passed is not shown either: its tables (if kept) go.
  const finished = async (): Promise<Exploration> => {
    if (tally.found) await dropKeptTables(db, tally.lastPassed);
    return { ...tally, ms: Math.round(performance.now() - began) };
  };
  const header = (program: number) => [
    `found by reservebench explore --strategy ${ref.strategy.id} --seed ${options.seed} (program ${program})`,
    `replay: reservebench run --strategy ${ref.strategy.id} --spec THIS_FILE`,
  ];
  for (const program of sweepPrograms(ref.strategy)) {
    if (outOfTime()) break;
    tally.programs += 1;
    tally.swept += 1;
    options.onProgress?.({ programs: tally.programs, total: budget.programs, shrinking: false });
    const run = await runProgram(db, ref, program, settings, header(tally.programs));
    await dropKeptTables(db, unshownBy(tally, run, false));
    if (run.kind === 'invalid' || run.kind === 'broken') tally[run.kind] += 1;
    else if (run.kind === 'pass') tally.lastPassed = run.result;
    else {
      // Already one operation against another: nothing smaller to shrink to.
      tally.found = { program, spec: run.spec, result: run.result, foundAt: tally.programs };
      return finished();
    }
  }
  const property = fc.asyncProperty(programArbitrary(ref.strategy), async (program) => {
    const shrinking = tally.found !== undefined;
    if (shrinking ? tally.shrinks >= budget.shrinkRuns : outOfTime()) return true;
    if (shrinking) tally.shrinks += 1;
    else tally.programs += 1;
    options.onProgress?.({ programs: tally.programs, total: budget.programs, shrinking });
    const run: ProgramRun = await runProgram(db, ref, program, settings, header(tally.programs));
    await dropKeptTables(db, unshownBy(tally, run, shrinking));
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
      foundAt: tally.found?.foundAt ?? tally.programs,
    };
    return false;
  });
  await fc.check(property, { seed: options.seed, numRuns: budget.programs, endOnFailure: false });
  return finished();
}
