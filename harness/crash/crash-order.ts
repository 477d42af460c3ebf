import type { IsolationLevel, NodeIdentity, PausePoint, ReserveRequest } from '../../strategies/contract.ts';
import type { PaymentRequest } from '../../strategies/payment/contract.ts';

/** `expire`, or one reservation made on a node (the child process is that node for its lifetime). */
export type CrashOperation = 'expire' | { reserve: ReserveRequest; node: NodeIdentity };

/** What the crash child runs of the module: a reservation strategy's operation, or a payment design's pay. */
export type CrashWork =
  | { contract: 'reservation'; operation: CrashOperation | { confirm: string } }
  | { contract: 'payment'; operation: { pay: PaymentRequest } };

/** What the crash child runs: one operation of a design, stopping for good at `crashAt`. */
export type CrashOrder = CrashWork & {
  /** The strategy's (or payment design's) module, imported again in the child. */
  moduleUrl: string;
  connectionString: string;
  schema: string;
  isolation?: IsolationLevel;
  /** The child's backend is found (and seen gone) in pg_stat_activity by this name. */
  applicationName: string;
  crashAt: PausePoint;
};

/** The operation's name, for a timeout's message. */
export function crashOperationName(work: CrashWork): string {
  const { operation } = work;
  if (operation === 'expire') return 'expire';
  return 'reserve' in operation ? 'reserve' : 'confirm' in operation ? 'confirm' : 'pay';
}

/** Printed on stdout when the child has reached its pause point and is waiting to be killed. */
export const STAGE_PREFIX = 'STAGE ';
/** Printed when the operation finished without passing the pause point, with its result as JSON. */
export const DONE_PREFIX = 'DONE ';
