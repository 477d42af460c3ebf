/**
 * A program of the order contract the explorer runs: sessions of ORDER steps over a small alphabet — two
 * skus of 2 units each, quantities of 1 or 2, two users, two keys — each possibly stopped at one of the
 * design's pause points and then committed, rolled back or killed there; and a schedule (an order given in
 * full, or PCT's: harness/explore/schedule.ts). It is written out as an order spec, its stock in its
 * `# stock` line, which is also how it runs, so what is reported is what ran.
 */
import type { OrderPausePoint } from '../../../../strategies/order/contract.ts';
import {
  pausedSteps,
  programSpec,
  type ScheduledProgram,
  type StepPause,
} from '../../../explore/schedule.ts';

/** Each sku's stock in a program: two carts of 1 want no more than it has, one of 2 leaves none. */
export const EXPLORED_STOCK = 2;
export const EXPLORED_SKUS = ['sku-a', 'sku-b'] as const;

export interface OrderOp {
  key: string;
  user: string;
  /** `sku-a:1,sku-b:1`: the cart as a step writes it, its skus already tagged. */
  cart: string;
  pause?: StepPause<OrderPausePoint>;
}

export interface OrderProgram extends ScheduledProgram<OrderOp> {
  /** The skus the program's carts name (tagged per program in a batch), each stocked EXPLORED_STOCK. */
  skus: string[];
}

/** The spec steps of one ORDER: its own, and the RESUME of its pause if it has one. */
export function orderStepsOf(op: OrderOp): string[] {
  return pausedSteps(`ORDER ${op.key} ${op.user} ${op.cart}`, op.pause);
}

/** The program as an order spec (`reservebench run --spec FILE --strategy ID`): its stock line first. */
export function orderSpecText(program: OrderProgram, header: readonly string[] = []): string {
  const stock = `stock ${program.skus.map((sku) => `${sku}:${EXPLORED_STOCK}`).join(',')}`;
  return programSpec(program, orderStepsOf, { header: [stock, ...header] });
}
