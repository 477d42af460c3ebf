/**
 * The payment payload of the isolation-matrix chapter's payment drill, which a spec's PAY step and a payment
 * scenario send unless told another amount: order-1001, 30.00 CNY to merchant demo, its fingerprint computed
 * as a worker computes it.
 */
import type { PaymentRequest } from '../../../../strategies/payment/contract.ts';
import { requestFingerprint } from '../../../../strategies/payment/fingerprint.ts';

/** The drill's order and payload: idem-order-1001, 30.00 CNY to merchant demo. */
export const ORDER_PAYMENT = {
  order: 'order-1001',
  amount: 3000,
  currency: 'CNY',
  merchant: 'demo',
} as const;

/** What a request pays: the fingerprint's fields (amount, currency, merchant) and the order. */
export type PaymentPayload = { order: string; amount: number; currency: string; merchant: string };

/** A request of the drill's payload (or another amount) under `idempotencyKey`, proposing `paymentId`. */
export function paymentRequest(
  idempotencyKey: string,
  paymentId: string,
  amount: number = ORDER_PAYMENT.amount,
): PaymentRequest {
  return requestOf(idempotencyKey, paymentId, { amount });
}

/** A request of the drill's payload with the fields `changed` gives changed, its fingerprint computed anew. */
export function requestOf(
  idempotencyKey: string,
  paymentId: string,
  changed: Partial<PaymentPayload>,
): PaymentRequest {
  const { order, amount, currency, merchant } = { ...ORDER_PAYMENT, ...changed };
  return {
    idempotencyKey,
    fingerprint: requestFingerprint({ amount, currency, merchant }),
    order,
    amount,
    currency,
    merchant,
    paymentId,
  };
}
