/**
 * What a contract brings the explorer (harness/explore/, docs/explore.md): its programs — the sweep of one
 * operation against another at the design's pause points, the exhaustive scope over its small alphabet,
 * random longer ones as a fast-check arbitrary (so a failing one shrinks) — how one runs against a design
 * and is judged by the contract's own checks and model, how one is written as a spec of the contract's own
 * steps, and how that spec is replayed. The engine (phases, batches, halving, shrinking, the case's
 * verdict) exists once and takes this; `P` is the contract's program, never seen inside the engine.
 */
import type { Arbitrary } from 'fast-check';
import type { Expectation } from '../../strategies/contract.ts';
import type { RunDatabase } from '../database/database.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import type { CaseSettings } from './case-settings.ts';

/**
 * A phase's programs as the engine runs them in batches (harness/explore/exhaustive.ts): the contract's
 * alphabet, and how programs of it run side by side as one program.
 */
export interface ScopeLanguage<V, P> {
  /** Every program of 1 to `maxLength` operations, shortest first, each once up to renaming. */
  programs(maxLength: number): Iterable<V>;
  /** Its operations (what the scope's length counts). */
  length(program: V): number;
  /** Programs of one group can run in one batch. */
  groupOf(program: V): string;
  /** Most programs of this group in one batch, where the group needs fewer than the engine's size. */
  largestBatch?(group: string): number | undefined;
  /** Programs side by side, each named apart from the others: one program to run. */
  batch(programs: readonly V[]): P;
  /** One line for a report. */
  describe(program: V): string;
}

/** How one program ran: judged (pass or fail), not runnable in the order it was drawn in, or broken. */
export type ProgramRun<C> =
  | { kind: 'pass' | 'fail'; result: C; spec: string }
  /** The schedule asked a session for a step while its blocked one waited on idle sessions. */
  | { kind: 'invalid'; spec: string }
  /** The program could not be run to its end (a step stuck, setup failed): reported, not a finding. */
  | { kind: 'broken'; result: C; spec: string };

/** What this exploration can do beyond one server: fail a synchronous cluster over (`--cluster`). */
export interface ExploreReach {
  failover: boolean;
}

/** The identity of a design's `explore/<id>` case. */
export interface ExploreIdentity {
  id: string;
  scenario: 'explore';
  strategy: string;
  expect: Expectation;
}

/** A contract's side of the explorer: `R` its loaded design, `C` its case result, `P` its program. */
export interface ContractExplore<R, C extends CaseResultBase, P = unknown> {
  /** The sessions one program of any phase opens at most (the lanes' connection room). */
  readonly connections: number;
  /**
   * Why the design's exploration is n/a on this server (a version or capability its programs need), or
   * why its bug is out of the explorer's reach (read from what the design declares, never its id).
   */
  notExplored(db: RunDatabase, ref: R, reach: ExploreReach): string | undefined;
  /** The sweep: one operation against another at each pause point the design declares (none: no sweep). */
  sweep?(ref: R): ScopeLanguage<unknown, P>;
  /** The exhaustive scope over the contract's alphabet, shortest first, for what the design implements. */
  scope(ref: R): ScopeLanguage<unknown, P>;
  /**
   * Programs that fail the primary over with an operation in flight, each on a synchronous cluster of its
   * own (CaseSettings.failoverCluster): run only when the exploration has one.
   */
  failover?(ref: R): readonly P[];
  /** Random programs of what the design implements (several operations per session, PCT schedules). */
  random(ref: R): Arbitrary<P>;
  /** The program as a spec of the contract's own steps, the header as comments before it. */
  specText(program: P, header: readonly string[]): string;
  /**
   * The program on fresh tables, judged by every check of the contract (its model among them) as if the
   * design claimed to hold, whatever it claims: a program that fails is a finding.
   */
  run(
    db: RunDatabase,
    ref: R,
    program: P,
    settings: CaseSettings,
    header: readonly string[],
  ): Promise<ProgramRun<C>>;
  /** A finding's spec, run again from its file `times` times, each judged as `run` judges. */
  replay(
    db: RunDatabase,
    ref: R,
    text: string,
    file: string,
    settings: CaseSettings,
    times: number,
  ): Promise<C[]>;
  /** The explore case the contract reports when it was not explored (n/a), or could not be (broken). */
  skippedCase(identity: ExploreIdentity, reason: string): C;
  brokenCase(identity: ExploreIdentity, problem: string): C;
}
