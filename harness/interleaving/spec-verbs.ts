/**
 * What a business contract adds to the isolation spec language: its verbs (RESERVE, CONFIRM, …; PAY), how
 * a step body that starts with one parses, and how such a step runs on a session — a call of the design
 * the run drives, which may stop at a pause point (`UNTIL`) until a RESUME step of its session. SQL, WAIT,
 * RESTART and RESUME are the engine's own and belong to every contract. The engine and the parser know a
 * contract only through this (harness/contracts/<id>/ holds each one's verbs).
 */
import type { ContractStep, NodeRef } from './permutation.ts';
import type { Session } from './session.ts';
import type { StepWords } from './spec-words.ts';
import type { StepEnvironment } from './step-environment.ts';
import type { Outcome } from './step-outcome.ts';

export interface SpecVerbs {
  /** The contract whose design these verbs call (a step records it: a spec drives one contract). */
  readonly contract: string;
  /** How an error names what a step of these verbs does: "pays (the payment contract)". */
  readonly drives: string;
  /** The verbs, upper case. A step body starting with one of them (in any case) is one of these steps. */
  readonly names: readonly string[];
  /** The verbs whose operation runs on a node, and may end with `ON <i>/<n>`. */
  readonly onANode: readonly string[];
  /** The step the body describes (its verb is `body.words[0]`); one line at the faulty word when it is wrong. */
  parse(body: StepWords): ContractStep;
  /** The node a step's operation runs on (its `ON`, or 1/1), or none for a step that runs on no node. */
  nodeOf(step: ContractStep): NodeRef | undefined;
  /** Starts the step on its session: the design's call, held at `until` when it gets there. */
  start(session: Session, step: ContractStep, env: StepEnvironment): Promise<Outcome>;
  /**
   * Instead of the step, how long the database clock must pass (a step the design cannot run that time can
   * stand in for: BACKDATE on a design without the hook); undefined to run the step itself.
   */
  waitsInstead?(step: ContractStep, env: StepEnvironment): number | undefined;
}
