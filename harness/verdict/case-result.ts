/**
 * A case's result, discriminated on `status` (tinybench style): failures are recorded, not thrown, so one
 * broken case never hides the others. Field names are the public JSON (docs/report.schema.json).
 */
import type { Expectation } from '../../strategies/contract.ts';
import type { StepRecord } from '../interleaving/permutation.ts';

export type OutcomeCounts = Record<string, number>;

/** What the report keeps of exploring one design (`explore/<design>`, docs/explore.md). */
export interface ExplorationSummary {
  seed: number;
  /** Programs started, those whose schedule was invalid, those that could not be run, shrink runs. */
  programs: number;
  /** Of the programs, those of the sweep (one operation against another), run first. */
  swept: number;
  /**
   * The exhaustive scope, run after the sweep and not counted in `programs`: its programs run, the longest
   * length all of whose programs ran (0: none), the batches they ran in (halving included), those that
   * could not be judged even alone, and its wall time (programs per second = programs / ms × 1000).
   */
  scope?: { programs: number; completeLength: number; batches: number; broken: number; ms: number };
  invalid: number;
  broken: number;
  shrinks: number;
  ms: number;
  /** The finding's spec file, and how many of its replays failed again. */
  spec?: string;
  reproduced?: { failed: number; of: number };
}

/** An interleaving step as the report shows it: its times are the history's, not the reader's. */
export type ReportedStep = Omit<StepRecord, 'sentAt' | 'completedAt'>;

/** A spec's steps as the report shows them: without their times, which differ run to run. */
export function reportedSteps(steps: readonly StepRecord[]): ReportedStep[] {
  return steps.map(({ sentAt: _, completedAt: __, ...shown }) => shown);
}

/** A value a script scenario observed along the way. */
export type Observed = number | number[] | string | Record<string, number>;

/** Named values a script scenario saw along the way (units each expiry run returned, …); typed per scenario. */
export type Observations = Record<string, Observed>;

/**
 * One phase of a case: a batch of requests (with the lifecycle steps that came before it or while it was in
 * flight), or the lifecycle steps after the last batch. Outcomes are this phase's answers alone; the case's
 * `outcomes` are their sum.
 */
export interface CasePhase {
  /** `reserve`, `replay`, `reserve over HTTP`, `reserve after expire ×2 (5 units back)`, `then expire …`. */
  label: string;
  outcomes: OutcomeCounts;
}

/** `reserve: HELD 10 · reserve after database crash: HELD 5`; a phase without requests shows its label only. */
export function formatPhases(phases: readonly CasePhase[], separator = ' · '): string {
  return (
    phases
      .map((p) =>
        Object.keys(p.outcomes).length > 0 ? `${p.label}: ${formatOutcomes(p.outcomes)}` : p.label,
      )
      .join(separator) || '-'
  );
}

/** `HELD 40, SOLD_OUT 110`, or `-` when nothing was counted. */
export function formatOutcomes(outcomes: OutcomeCounts): string {
  return (
    Object.entries(outcomes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || '-'
  );
}

/** A case's status as the first word of its line while the run goes on, four characters wide. */
export function statusMark(status: CaseResultBase['status']): string {
  return { pass: 'ok  ', fail: 'FAIL', broken: 'FAIL', 'n/a': 'n/a ' }[status];
}

/** One order of an interleaving's steps, run on fresh tables (`run --permutations all`). */
export interface PermutationReport {
  order: string;
  /** `invalid`: a session's next step came while its previous one waited on idle sessions. */
  status: 'pass' | 'fail' | 'broken' | 'invalid';
  blocked: string[];
  outcomes: OutcomeCounts;
  problems?: string[];
  /** The schema holding this order's tables, when they were kept for inspection. */
  keptSchema?: string;
}

/** What every contract's case result says, whatever else it holds: what the suite, reports and JUnit read. */
export interface CaseResultBase {
  id: string;
  scenario: string;
  /** The design the case ran. */
  strategy: string;
  /** `measure`: a level outside the design's claimed isolation levels; reported, never failing the run. */
  expect: Expectation | 'measure';
  status: 'pass' | 'fail' | 'n/a' | 'broken';
  outcomes: OutcomeCounts;
  /** One line on what the case showed. */
  boundary: string;
  /** Why a case failed or broke. */
  problems?: string[];
  /** Why a case is n/a. */
  reason?: string;
  /** The schema holding the case's tables when they were kept for inspection. */
  keptSchema?: string;
  /** Wall time of the whole case in ms, set by the suite. */
  durationMs?: number;
  /** The server version the case ran on, when the run ran on several (`run --postgres 15,18`). */
  postgres?: string;
  /** `explore/<design>`: what the explorer ran, and the finding's spec (docs/explore.md). */
  exploration?: ExplorationSummary;
}

/**
 * An n/a case for lack of an optional operation or pause point: a coverage gap, reported, and with
 * `--require-coverage` failing the run; a design sitting a scenario out by its own choice is none.
 */
export function isCoverageGap(c: CaseResultBase): boolean {
  // What the design lacks for the scenario (optional operations, pause points), where its contract says.
  const { coverage } = c as { coverage?: { missing?: readonly string[] } };
  return c.status === 'n/a' && (coverage?.missing?.length ?? 0) > 0;
}

/** A case that ran to its end and was judged. */
export function isMeasured<C extends CaseResultBase>(c: C): c is Extract<C, { status: 'pass' | 'fail' }> {
  return c.status === 'pass' || c.status === 'fail';
}

/** A case that makes the run fail: it missed an expectation, or could not be measured at all. */
export function failsTheRun(c: CaseResultBase): boolean {
  return (c.status === 'fail' || c.status === 'broken') && c.expect !== 'measure';
}
