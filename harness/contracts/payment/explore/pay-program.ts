/**
 * A program of the payment contract the explorer runs: sessions of PAY steps, each a request under one of
 * a few keys with the payment drill's payload or that payload with one field changed, possibly stopped at one of
 * the design's pause points and then committed, rolled back or killed there; and a schedule (an order
 * given in full, or PCT's: harness/explore/schedule.ts). It is written out as a payment spec, which is also
 * how it runs, so what is reported is what ran.
 */
import type { PaymentPausePoint } from '../../../../strategies/payment/contract.ts';
import {
  pausedSteps,
  programSpec,
  type ScheduledProgram,
  type StepPause,
} from '../../../explore/schedule.ts';
import type { PaymentPayload } from '../spec/order-payment-payload.ts';

/**
 * The payload a PAY sends: the payment drill's (`base`), or it with one field changed — each fingerprint field
 * (amount, currency, merchant: another fingerprint, MISMATCH on a paid key) and the order (not in the
 * fingerprint: REUSED, with the recorded response).
 */
export const PAYLOADS = {
  base: {},
  amount: { amount: 9999 },
  currency: { currency: 'USD' },
  merchant: { merchant: 'other' },
  order: { order: 'order-2002' },
} as const satisfies Record<string, Partial<PaymentPayload>>;
export type PayloadId = keyof typeof PAYLOADS;

export interface PayOp {
  key: string;
  payload: PayloadId;
  /** The payment id this worker proposes: each PAY its own. */
  paymentId: string;
  pause?: StepPause<PaymentPausePoint>;
}

export type PayProgram = ScheduledProgram<PayOp>;

/** A key or id as a step writes it (none of the explorer's holds a space or a quote). */
const OPTION_OF: Readonly<Record<string, string>> = {
  amount: 'AMOUNT',
  currency: 'CURRENCY',
  merchant: 'MERCHANT',
  order: 'ORDER',
};

/** The spec steps of one PAY: its own, and the RESUME of its pause if it has one. */
export function payStepsOf(op: PayOp): string[] {
  const fields = Object.entries(PAYLOADS[op.payload]).map(
    ([field, value]) => ` ${OPTION_OF[field]} ${value}`,
  );
  return pausedSteps(`PAY ${op.key} ${op.paymentId}${fields.join('')}`, op.pause);
}

/** The program as a payment spec (`reservebench run --spec FILE --strategy ID`): no setup, the design's. */
export function paySpecText(program: PayProgram, header: readonly string[] = []): string {
  return programSpec(program, payStepsOf, { header });
}
