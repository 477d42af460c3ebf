/**
 * A case's result, discriminated on `status` (tinybench style): failures are recorded, not thrown, so one
 * broken case never hides the others. Field names are the public JSON of DESIGN.md.
 */
import type { Expectation } from '../strategies/contract.ts';
import type { StepRecord } from './interleaving/permutation.ts';
import type { Invariants } from './invariants.ts';
import type { LatencyPercentiles } from './latency.ts';
import type { Observations } from './scenarios/scenario.ts';

export type OutcomeCounts = Record<string, number>;

/** `HELD 40, SOLD_OUT 110`, or `-` when nothing was counted. */
export function formatOutcomes(outcomes: OutcomeCounts): string {
  return (
    Object.entries(outcomes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || '-'
  );
}

interface CaseIdentity {
  id: string;
  scenario: string;
  strategy: string;
  expect: Expectation;
}

export interface MeasuredCase extends CaseIdentity {
  status: 'pass' | 'fail';
  outcomes: OutcomeCounts;
  invariants: Invariants;
  /** One line on what this case showed. */
  boundary: string;
  /** Why a case failed: each expectation it missed. Empty on pass. */
  problems: string[];
  /** Per-request latency of a clients scenario (includes time held at a barrier). */
  latency?: LatencyPercentiles;
  /** The recorded steps of an interleaving scenario: blocked or not, and each step's result. */
  steps?: StepRecord[];
  /** What a script scenario saw along the way (units each expiry run returned, …). */
  observations?: Observations;
  /** The schema holding this case's tables when they were kept for inspection. */
  keptSchema?: string;
}

export interface SkippedCase extends CaseIdentity {
  status: 'n/a';
  outcomes: OutcomeCounts;
  invariants: null;
  boundary: string;
  reason: string;
}

/** A case that could not be measured at all (the harness failed, e.g. a session never progressed). */
export interface BrokenCase extends CaseIdentity {
  status: 'fail';
  outcomes: OutcomeCounts;
  invariants: null;
  boundary: string;
  problems: string[];
}

export type CaseResult = MeasuredCase | SkippedCase | BrokenCase;

export function isMeasured(c: CaseResult): c is MeasuredCase {
  return c.invariants !== null;
}
