/**
 * The verdict of one case of any contract, from the problems the harness found (each named by the check
 * it belongs to) and what the design claims. A case that did not drive what its scenario claims fails as
 * not exercised, whatever else it showed. A safe design passes when no check fires; a negative control
 * passes only when one of the checks its `caughtBy` names for the scenario fires (another check firing
 * means the scenario no longer shows what the control exists to show).
 */
import type { Expectation } from '../../strategies/contract.ts';

/** One expectation a case missed, named by the check it belongs to (what a control's `caughtBy` names). */
export interface Problem<C extends string = string> {
  check: C;
  message: string;
}

/** What the verdict reads of a design: its id and, for a control, the checks that must catch it where. */
export interface JudgedDesign {
  id: string;
  caughtBy?: Readonly<Record<string, readonly string[]>>;
}

export interface Judgement<C extends string = string> {
  status: 'pass' | 'fail';
  problems: string[];
  boundary: string;
  /** Every check that fired, whatever the expectation. */
  fired: C[];
}

/** What the case claimed to drive and did not (`exercised`), as the line the case fails with. */
export function notExercised<C extends string>(claims: readonly string[]): Problem<C>[] {
  return claims.map((line) => ({ check: 'exercised' as C, message: `not exercised: ${line}` }));
}

function caughtControl<C extends string>(
  design: JudgedDesign,
  scenarioId: string,
  found: readonly Problem<C>[],
  fired: C[],
  messages: string[],
): Judgement<C> {
  const wanted = design.caughtBy?.[scenarioId] ?? [];
  const caught = found.filter((p) => wanted.includes(p.check));
  if (caught.length > 0) {
    const boundary = `caught: ${[...new Set(caught.map((p) => p.message))].join(', ')}`;
    return { status: 'pass', problems: [], boundary, fired };
  }
  if (fired.length > 0) {
    const problem = `caught for the wrong reason: ${fired.join(', ')} fired, but ${design.id} must be caught by ${wanted.join(' or ')} here`;
    return {
      status: 'fail',
      problems: [problem, ...messages],
      boundary: `${problem} (${messages.join('; ')})`,
      fired,
    };
  }
  return {
    status: 'fail',
    problems: [`expected ${wanted.join(' or ')} to catch it, but every check held`],
    boundary: 'NOT caught: every check held',
    fired,
  };
}

/**
 * The judgement of a case: `expect` is the design's claim for it (`measure` at a level it does not claim:
 * judged as if it should hold, reported only); `held` says what a passing safe design showed.
 */
export function judge<C extends string>(
  design: JudgedDesign,
  expect: Expectation | 'measure',
  scenarioId: string,
  found: readonly Problem<C>[],
  held: () => string,
): Judgement<C> {
  const fired = [...new Set(found.map((p) => p.check))];
  const messages = [...new Set(found.map((p) => p.message))];
  const unexercised = found.filter((p) => p.check === 'exercised').map((p) => p.message);
  if (unexercised.length > 0)
    return { status: 'fail', problems: messages, boundary: [...new Set(unexercised)].join('; '), fired };
  if (expect === 'violate') return caughtControl(design, scenarioId, found, fired, messages);
  if (messages.length > 0)
    return { status: 'fail', problems: messages, boundary: `broke: ${messages.join('; ')}`, fired };
  return { status: 'pass', problems: [], boundary: held(), fired };
}

/** The counts must be exactly these (absent keys mean 0). */
export function exactly(
  expected: Readonly<Record<string, number>>,
  actual: Readonly<Record<string, number>>,
) {
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...keys]
    .filter((k) => (actual[k] ?? 0) !== (expected[k] ?? 0))
    .map((k) => ({
      check: 'outcomes' as const,
      message: `${k} ${actual[k] ?? 0}, expected ${expected[k] ?? 0}`,
    }));
}

/** Each observation must equal its expected value. */
export function observedExactly(
  expected: Readonly<Record<string, unknown>>,
  observed: Readonly<Record<string, unknown>>,
) {
  return Object.entries(expected)
    .filter(([k, v]) => JSON.stringify(observed[k]) !== JSON.stringify(v))
    .map(([k, v]) => ({
      check: 'observations' as const,
      message: `${k} ${JSON.stringify(observed[k])}, expected ${JSON.stringify(v)}`,
    }));
}

/** A failure that is no answer of the contract's: a step or a read that threw. */
export interface OperationFailure {
  sqlstate?: string | undefined;
  error: string;
}

/**
 * Operations that failed with an exception (`ERROR` answers, and failures that are no answer), except
 * those whose SQLSTATE the scenario causes on purpose (`faults`): one problem naming how many and the first.
 */
export function errorProblems(
  answers: readonly (
    | { outcome: string; sqlstate?: string | undefined; error?: string | undefined }
    | OperationFailure
  )[],
  faults: readonly string[] = [],
): Problem<'errors'>[] {
  const failed = (a: (typeof answers)[number]) => !('outcome' in a) || a.outcome === 'ERROR';
  const errors = answers.filter((a) => failed(a) && !(a.sqlstate && faults.includes(a.sqlstate)));
  const first = errors[0];
  if (!first) return [];
  const why = `${first.sqlstate ? `[${first.sqlstate}] ` : ''}${first.error ?? 'unknown error'}`;
  return [{ check: 'errors', message: `${errors.length} operation(s) failed, first: ${why}` }];
}

/** What the harness records beside a contract's own outcomes: a rollback it caused, a lost answer, an exception. */
export const HARNESS_OUTCOMES = ['ROLLED_BACK', 'INDETERMINATE', 'ERROR'] as const;

/** Counts per outcome, in the contract's order and then the harness's, so reports read the same every run. */
export function countOutcomes(
  answers: readonly { outcome: string }[],
  contractOutcomes: readonly string[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of [...contractOutcomes, ...HARNESS_OUTCOMES]) {
    const n = answers.filter((a) => a.outcome === outcome).length;
    if (n > 0) counts[outcome] = n;
  }
  return counts;
}
