/**
 * The reservation contract's steps in a spec: RESERVE, the lifecycle operations (CONFIRM, RELEASE, EXPIRE,
 * BACKDATE, DISABLE) and the reads STATUS and REMAINING, as the engine carries them (a ContractStep with
 * the request or the key it names).
 */
import type { PausePoint, ReserveRequest } from '../../../../strategies/contract.ts';
import type { ContractStep, Step } from '../../../interleaving/permutation.ts';

export const RESERVATION_CONTRACT = 'reservation';

export const LIFECYCLE_STEPS = ['confirm', 'release', 'expire', 'backdate', 'disable'] as const;
export type LifecycleStep = (typeof LIFECYCLE_STEPS)[number];

/**
 * The strategy's reserve. With `until`, the step completes when the operation reaches that pause point
 * and the operation stays there, transaction open, until a `resume` step of the same session.
 */
export interface ReserveStep extends ContractStep {
  reserve: ReserveRequest;
  until?: PausePoint;
}

/**
 * A lifecycle operation of the strategy: confirm, release (of `requestKey`), expire, disable (the sku in
 * `requestKey`), or the backdate hook (`requestKey`'s expiry moved into the past). With `until`, it
 * stops at that pause point like a reserve.
 */
export interface OperationStep extends ContractStep {
  operation: LifecycleStep;
  until?: PausePoint;
}

/** A read of the strategy's state on the session's connection: `status(requestKey)`, `remaining(sku)`. */
export type ReadStep = ContractStep &
  ({ read: 'status'; requestKey: string } | { read: 'remaining'; sku: string });

export type ReservationStep = ReserveStep | OperationStep | ReadStep;

/** The step as one of the reservation contract's, or undefined for any other step. */
export function reservationStep(step: Step): ReservationStep | undefined {
  return 'verb' in step && step.contract === RESERVATION_CONTRACT ? (step as ReservationStep) : undefined;
}
