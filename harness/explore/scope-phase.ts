/**
 * A phase of the explorer run in batches (exhaustive.ts): the exhaustive scope or the sweep, each in the
 * contract's language (contract-explore.ts). Each batch is a program the contract runs on fresh tables like
 * any other. Only the tables of the run the case shows are kept: the smallest failing batch's, or the last
 * that passed.
 */
import type { CaseSettings } from '../contract/case-settings.ts';
import type { ContractExplore, ScopeLanguage } from '../contract/contract-explore.ts';
import type { RunDatabase } from '../database/database.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import { type BatchVerdict, exhaust, type ScopeTally } from './exhaustive.ts';

export interface ScopeBudget {
  /** Scope programs to run at most, shortest first. */
  programs: number;
  maxLength: number;
  batchSize: number;
  firstBatchSize: number;
  outOfTime(): boolean;
}

export interface ScopeOutcome<C, P> {
  tally: ScopeTally;
  found?: { program: P; spec: string; result: C; described: string[] };
  /** The last batch that passed (its tables kept only with --keep). */
  lastPassed?: C;
}

/** Drops the tables a run kept (a failing or broken one's; any one's with --keep). */
export async function dropKeptTables(db: RunDatabase, result: CaseResultBase | undefined): Promise<void> {
  const schema = result?.keptSchema;
  if (schema) await db.dropCaseSchema(schema);
}

/** A pass whose history the checker could not judge (past its budget) judged nothing: it is halved. */
function verdictOf(result: CaseResultBase, kind: 'pass' | 'fail' | 'broken'): BatchVerdict {
  if (kind === 'broken') return 'broken';
  if (kind === 'fail') return 'fail';
  const { history } = result as { history?: { status?: string } };
  return history?.status === 'unchecked' ? 'unjudged' : 'pass';
}

/** The design, its contract's side of the explorer, and where and how its programs run. */
export interface Explored<R, C extends CaseResultBase, P> {
  db: RunDatabase;
  ref: R;
  explore: ContractExplore<R, C, P>;
  settings: CaseSettings;
}

export async function batchedPhase<V, R, C extends CaseResultBase, P>(
  e: Explored<R, C, P>,
  language: ScopeLanguage<V, P>,
  budget: ScopeBudget,
): Promise<ScopeOutcome<C, P>> {
  const { db } = e;
  const shown: { failing?: C; passed?: C; spec?: string; program?: P } = {};
  const { tally, found } = await exhaust(language, {
    batchSize: budget.batchSize,
    firstBatchSize: budget.firstBatchSize,
    budget: budget.programs,
    maxLength: budget.maxLength,
    outOfTime: budget.outOfTime,
    run: async (program) => {
      const run = await e.explore.run(db, e.ref, program, e.settings, []);
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
  const outcome: ScopeOutcome<C, P> = { tally, ...(shown.passed ? { lastPassed: shown.passed } : {}) };
  if (!found || !shown.failing || !shown.spec || !shown.program) return outcome;
  const described = found.programs.map((p) => language.describe(p));
  return {
    ...outcome,
    found: { program: shown.program, spec: shown.spec, result: shown.failing, described },
  };
}
