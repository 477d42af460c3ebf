import type { PausePoint } from '../strategies/contract.ts';

/** What the crash child runs: one lifecycle operation of a strategy, stopping for good at `crashAt`. */
export interface CrashOrder {
  strategyModuleUrl: string;
  connectionString: string;
  schema: string;
  /** The child's backend is found (and seen gone) in pg_stat_activity by this name. */
  applicationName: string;
  operation: 'expire';
  crashAt: PausePoint;
}

/** Printed on stdout when the child has reached its pause point and is waiting to be killed. */
export const STAGE_PREFIX = 'STAGE ';
/** Printed when the operation finished without passing the pause point. */
export const DONE_PREFIX = 'DONE units=';
