/**
 * What a scenario expects, as data the verdict evaluates (verdict.ts): the inputs a case ran with, the
 * figures it showed, and the problems a missed expectation is reported as. Below the scenarios, which
 * declare these (scenario.ts re-exports them), so that judging a case needs nothing of how it was driven.
 */
import type { CheckName, StockLine } from '../../../../strategies/contract.ts';
import type { Observations, OutcomeCounts } from '../../../verdict/case-result.ts';
import type { Problem as GenericProblem } from '../../../verdict/judgement.ts';
import type { Invariants } from './invariants.ts';

/** The inputs of one case after CLI overrides are applied to the scenario's fixture. */
export interface ScenarioParams {
  clients: number;
  stock: StockLine[];
  user: string;
  ttlMs: number;
  /** The nodes the clients are spread over (ClientsInput); an interleaving's sessions talk to one node. */
  nodes: number;
}

/** One expectation a case missed, named by the reservation contract's check it belongs to. */
export type Problem = GenericProblem<CheckName>;

/** What a case showed, for the expectations that relate its figures to each other. */
export interface Seen<O extends Observations> {
  outcomes: OutcomeCounts;
  invariants: Invariants;
  observed: Partial<O>;
}

/**
 * What a safe design must show in a scenario, as data the generic runner evaluates (verdict.ts); nothing
 * outside the scenario's own file knows what it expects.
 */
export interface Expectations<O extends Observations> {
  /** The exact answer counts (absent outcomes mean 0). */
  outcomes?(params: ScenarioParams): OutcomeCounts;
  /** Observations that must equal these values exactly. */
  observations?(params: ScenarioParams): Partial<O>;
  /** Relations between figures that are not fixed numbers (sums the scheduler splits, bounds). */
  relations?(params: ScenarioParams, seen: Seen<O>): Problem[];
  /**
   * What the case must have driven to mean anything (an abort that held a unit, a confirm that won, a
   * hold that real time expired): one line per claim that did not happen, reported as "not exercised".
   */
  exercised?(params: ScenarioParams, seen: Seen<O>): string[];
  /**
   * Interleavings, per strategy id: exactly the steps that must be seen blocked in the listed permutation
   * (every other step must not block). A strategy without an entry is recorded, not judged, on this.
   */
  blocking?: Readonly<Record<string, readonly string[]>>;
  /**
   * SQLSTATEs the scenario causes on purpose (a backend it terminates: 57P01; a crash: 08006): a request
   * failing with one is INDETERMINATE (its fate is read back), not an `errors` problem.
   */
  faults?: readonly string[];
  /**
   * Checks this scenario measures as a boundary instead of judging (synchronous_commit = off loses
   * acknowledged holds in a crash: counted and reported, never failing the run).
   */
  boundaryChecks?: readonly CheckName[];
  /**
   * Interleavings whose answers depend on the order (a kill before or after a take): `outcomes`,
   * `observations` and `exercised` judge the listed permutation only; every other order is judged on the
   * invariants and `relations`.
   */
  orderDependent?: boolean;
  /** A clause the boundary table adds for a strategy measured here (e.g. what a crash cost it). */
  boundaryNote?(observed: Partial<O>): string | undefined;
  /** This scenario's counts stand in the boundary table for a design that showed no boundary. */
  headline?: boolean;
}

/** A figure the scenario derives from the final read (active after expiry, …) must be this. */
export function figure(name: string, actual: number, expected: number, why = ''): Problem[] {
  return actual === expected
    ? []
    : [{ check: 'observations', message: `${name} ${actual}, expected ${expected}${why ? ` ${why}` : ''}` }];
}
