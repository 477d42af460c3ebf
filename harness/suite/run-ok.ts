/**
 * Whether a run passes — one rule for every kind of run (one server, several versions, a black box):
 * no case failed the run, no case was fatally uncovered, some case was measured (a run in which every
 * case was n/a judged nothing), and no error went unhandled (harness/registry/unhandled-errors.ts).
 */
import { type CaseResultBase, failsTheRun, isCoverageGap, isMeasured } from '../verdict/case-result.ts';

export interface RunJudged {
  cases: readonly CaseResultBase[];
  /** The cases n/a for lack of an operation or pause point, when `--require-coverage` made them fatal. */
  uncovered: readonly string[];
  /** Errors nothing handled while the run ran. */
  unhandledErrors: number;
}

export function runOk({ cases, uncovered, unhandledErrors }: RunJudged): boolean {
  return (
    !cases.some(failsTheRun) && uncovered.length === 0 && cases.some(isMeasured) && unhandledErrors === 0
  );
}

/** The coverage gaps among `cases` (`id: reason`), fatal only when `requireCoverage`; else none. */
export function fatalCoverageGaps(cases: readonly CaseResultBase[], requireCoverage: boolean): string[] {
  return requireCoverage ? cases.filter(isCoverageGap).map((c) => `${c.id}: ${c.reason}`) : [];
}
