/**
 * What a business contract adds to the isolation spec language: its verbs (RESERVE, CONFIRM, …; PAY), how
 * a step body that starts with one parses, and how such a step runs on a session — a call of the design
 * the run drives, which may stop at a pause point (`UNTIL`) until a RESUME step of its session. SQL, WAIT,
 * RESTART and RESUME are the engine's own and belong to every contract. The engine and the parser know a
 * contract only through this (harness/contracts/<id>/ holds each one's verbs), and a step through what a
 * permutation run gives it (StepEnvironment), RESUME KILL (kill-step.ts) among them.
 */
import type pg from 'pg';
import type { Nodes } from './nodes.ts';
import type { ContractStep, Step } from './permutation.ts';
import type { Session } from './session.ts';
import type { StepWords } from './spec-words.ts';
import type { Outcome } from './step-outcome.ts';

export interface SpecVerbs {
  /** The contract whose design these verbs call (a step records it: a spec drives one contract). */
  readonly contract: string;
  /** How an error names what a step of these verbs does: "<what the step does> (the <id> contract)". */
  readonly drives: string;
  /** The verbs, upper case. A step body starting with one of them (in any case) is one of these steps. */
  readonly names: readonly string[];
  /** The verbs whose operation runs on a node, and may end with `ON <i>/<n>`. */
  readonly onANode: readonly string[];
  /**
   * The step the body describes (its verb is `body.words[0]`, its `ON` taken off into `body.on`): the
   * node its operation runs on goes in `node`. One line at the faulty word when it is wrong.
   */
  parse(body: StepWords): ContractStep;
  /** Starts the step on its session: the design's call, held at `until` when it gets there. */
  start(session: Session, step: ContractStep, env: StepEnvironment): Promise<Outcome>;
  /**
   * Instead of the step, how long the database clock must pass (a step the design cannot run that time can
   * stand in for: BACKDATE on a design without the hook); undefined to run the step itself.
   */
  waitsInstead?(step: ContractStep, env: StepEnvironment): number | undefined;
}

/** The design a spec's contract steps call, and its contract's verbs, which run them. */
export interface CalledDesign {
  verbs: SpecVerbs;
  design: unknown;
}

export interface StepEnvironment {
  /** Needed by every contract step: the design of the contract the spec drives. */
  contract?: CalledDesign;
  nodes: Nodes;
  /** The run's control connection: what is done to a session from outside it (RESUME KILL). */
  control: pg.Client;
  /** Every step of the permutation by name (a step may stand in for another's effect: BACKDATE). */
  steps: ReadonlyMap<string, Step>;
  /** How far a step that lets the database clock pass `ms` waits (EngineOptions.clockWait). */
  clockWait(ms: number): number;
  pollMs: number;
  timeoutMs: number;
}
