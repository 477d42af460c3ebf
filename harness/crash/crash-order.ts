import type { IsolationLevel, NodeIdentity, PausePoint, ReserveRequest } from '../../strategies/contract.ts';

/** `expire`, or one reservation made on a node (the child process is that node for its lifetime). */
export type CrashOperation = 'expire' | { reserve: ReserveRequest; node: NodeIdentity };

/** What the crash child runs: one lifecycle operation of a strategy, stopping for good at `crashAt`. */
export interface CrashOrder {
  strategyModuleUrl: string;
  connectionString: string;
  schema: string;
  isolation?: IsolationLevel;
  /** The child's backend is found (and seen gone) in pg_stat_activity by this name. */
  applicationName: string;
  operation: CrashOperation;
  crashAt: PausePoint;
}

/** Printed on stdout when the child has reached its pause point and is waiting to be killed. */
export const STAGE_PREFIX = 'STAGE ';
/** Printed when the operation finished without passing the pause point, with its result as JSON. */
export const DONE_PREFIX = 'DONE ';
