/**
 * A phase of the explorer run in batches (exhaustive.ts): the exhaustive scope (reservation/
 * scope-programs.ts, whose batches run round by round) or the sweep (sweep-batches.ts, on the engine).
 * Each batch is a program run on fresh tables like any other (run-program.ts). Only the tables of the run
 * the case shows are kept: the smallest failing batch's, or the last that passed.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import type { CaseSettings } from '../contract/case-settings.ts';
import type { CaseResult } from '../contracts/reservation/verdict/case-result.ts';
import type { RunDatabase } from '../database/database.ts';
import { type BatchVerdict, exhaust, type ScopeLanguage, type ScopeTally } from './exhaustive.ts';
import type { Program } from './program.ts';
import { runProgram } from './run-program.ts';

export interface ScopeBudget {
  /** Scope programs to run at most, shortest first. */
  programs: number;
  maxLength: number;
  batchSize: number;
  outOfTime(): boolean;
}

export interface ScopeOutcome {
  tally: ScopeTally;
  found?: { program: Program; spec: string; result: CaseResult; described: string[] };
  /** The last batch that passed (its tables kept only with --keep). */
  lastPassed?: CaseResult;
}

/** Drops the tables a run kept (a failing or broken one's; any one's with --keep). */
export async function dropKeptTables(db: RunDatabase, result: CaseResult | undefined): Promise<void> {
  const schema = result && 'keptSchema' in result ? result.keptSchema : undefined;
  if (schema) await db.dropCaseSchema(schema);
}

function verdictOf(result: CaseResult, kind: 'pass' | 'fail' | 'broken' | 'invalid'): BatchVerdict {
  if (kind === 'invalid' || kind === 'broken') return 'broken';
  if (kind === 'fail') return 'fail';
  return 'history' in result && result.history.status === 'unchecked' ? 'unjudged' : 'pass';
}

export async function batchedPhase<V>(
  db: RunDatabase,
  ref: StrategyRef,
  settings: CaseSettings,
  language: ScopeLanguage<V, Program>,
  budget: ScopeBudget,
): Promise<ScopeOutcome> {
  const shown: { failing?: CaseResult; passed?: CaseResult; spec?: string; program?: Program } = {};
  const { tally, found } = await exhaust(language, {
    batchSize: budget.batchSize,
    budget: budget.programs,
    maxLength: budget.maxLength,
    outOfTime: budget.outOfTime,
    run: async (program) => {
      const run = await runProgram(db, ref, program, settings);
      if (run.kind === 'invalid') return { verdict: 'broken', result: undefined };
      const verdict = verdictOf(run.result, run.kind);
      if (verdict === 'fail') {
        await dropKeptTables(db, shown.failing);
        Object.assign(shown, { failing: run.result, spec: run.spec, program });
      } else if (verdict === 'pass') {
        await dropKeptTables(db, shown.passed);
        shown.passed = run.result;
      } else await dropKeptTables(db, run.result);
      return { verdict, result: run.result };
    },
  });
  const outcome: ScopeOutcome = { tally, ...(shown.passed ? { lastPassed: shown.passed } : {}) };
  if (!found || !shown.failing || !shown.spec || !shown.program) return outcome;
  const described = found.programs.map((p) => language.describe(p));
  return {
    ...outcome,
    found: { program: shown.program, spec: shown.spec, result: shown.failing, described },
  };
}
