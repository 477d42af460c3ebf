import type { IsolationLevel, NodeIdentity, PausePoint } from '../../strategies/contract.ts';

/**
 * What the crash child runs of the design: one of its operations, called as the parent would call it — the
 * session first, then `args` — whatever the contract (a reserve, a confirm, an expire, a pay, …).
 */
export interface CrashWork {
  /** The design's method: `reserve`, `expire`, `pay`, … */
  operation: string;
  /** What follows the session in the call. */
  args: readonly unknown[];
  /** The node the child is for its lifetime, in the session, for an operation that takes one. */
  node?: NodeIdentity;
}

/** Where the child finds the design its order names. */
export interface CrashDesign {
  /** The design's module, imported again in the child (a variant's knobs in the fragment). */
  moduleUrl: string;
  /**
   * A module whose `importDesign(moduleUrl)` loads and checks a design that is not built in (a plug-in, a
   * design in SQL), as its contract's registry does in the parent.
   */
  importer: string;
}

/** What the crash child runs: one operation of a design, stopping for good at `crashAt`. */
export type CrashOrder = CrashWork &
  CrashDesign & {
    connectionString: string;
    schema: string;
    isolation?: IsolationLevel;
    /** The child's backend is found (and seen gone) in pg_stat_activity by this name. */
    applicationName: string;
    crashAt: PausePoint;
  };

/** Printed on stdout when the child has reached its pause point and is waiting to be killed. */
export const STAGE_PREFIX = 'STAGE ';
/** Printed when the operation finished without passing the pause point, with its result as JSON. */
export const DONE_PREFIX = 'DONE ';
