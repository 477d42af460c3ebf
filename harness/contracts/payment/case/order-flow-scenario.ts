/**
 * What a payment scenario that drives an order flow sees of it: a reservation strategy beside the payment
 * design, on the case's schema, and the flow's three steps — reserve a unit under the order's key,
 * confirm it, pay with the order's key — run in process, or killed -9 in a crash child at a pause point.
 */
import type { Outcome, PausePoint, StockLine } from '../../../../strategies/contract.ts';
import type { PaymentPausePoint } from '../../../../strategies/payment/contract.ts';

/** The reservation side of an order flow: the strategy (an id or a module path) and its stock. */
export interface OrderFlowSpec {
  strategy: string;
  stock: StockLine;
}

/** One place the flow is killed at: a step and one of the pause points its design declares for it. */
export type OrderCrashPoint =
  | { step: 'reserve' | 'confirm'; point: PausePoint }
  | { step: 'pay'; point: PaymentPausePoint };

/** How far one run of the flow got: each step's answer, up to the one it stopped at. */
export interface OrderRun {
  reserve: Outcome;
  /** The reservation is CONFIRMED after the confirm step (this call moved it, or an earlier one had). */
  confirmed?: boolean;
  pay?: string;
}

export interface OrderFlow {
  /** Every pause point the two designs declare, step by step in the flow's order. */
  crashPoints: readonly OrderCrashPoint[];
  /** Runs order `n`'s steps before the crash's in process, then its step in a crash child killed -9 there. */
  crash(n: number, at: OrderCrashPoint): Promise<{ stage: string; signal: string }>;
  /** The whole flow for order `n` from the top, with its keys; stops at a step whose answer ends it. */
  run(n: number): Promise<OrderRun>;
}
