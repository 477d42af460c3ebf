/** A strategy's operation a script (or the order flow) kills -9 in a child process, as the child runs it. */
import type { NodeIdentity, ReserveRequest } from '../../../../strategies/contract.ts';
import type { CrashDesign, CrashWork } from '../../../crash/crash-order.ts';
import { STRATEGY_IMPORTER } from '../designs/registry.ts';

/** `expire`, or one reservation made on a node (the child process is that node for its lifetime). */
export type CrashOperation = 'expire' | { reserve: ReserveRequest; node: NodeIdentity };

/** The child's call of the strategy: the operation, its arguments after the session, its node. */
export function crashWorkOf(operation: CrashOperation | { confirm: string }): CrashWork {
  if (operation === 'expire') return { operation: 'expire', args: [] };
  if ('confirm' in operation) return { operation: 'confirm', args: [operation.confirm] };
  return { operation: 'reserve', args: [operation.reserve], node: operation.node };
}

/** Where the child finds the strategy at `moduleUrl`: a plug-in through the strategy registry. */
export function crashStrategy(moduleUrl: string): CrashDesign {
  return { moduleUrl, importer: STRATEGY_IMPORTER };
}
