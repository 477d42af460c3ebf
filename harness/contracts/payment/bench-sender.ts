/**
 * Worker side of a payment series (bench.ts): a client's request n pays key n of its pair's stream with
 * the payment drill's payload, proposing a payment id of its own, and tallies what the audit needs: CREATED
 * answers, and the distinct keys answered CREATED or REUSED.
 */
import type { BenchSender } from '../../contract/bench-series.ts';
import { pairKey, payingPair } from './bench.ts';
import { importPaymentDesign } from './designs/payment-registry.ts';
import { paymentRequest } from './spec/order-payment-payload.ts';

export const sender: BenchSender = async (moduleUrl, _sku, tally) => {
  const design = await importPaymentDesign(moduleUrl);
  const answered = new Set<string>();
  tally.created = 0;
  tally.keys = 0;
  return async (ctx, client, n) => {
    const key = pairKey(payingPair(client), n);
    const { outcome } = await design.pay(ctx, paymentRequest(key, `bench-pay-${client}-${n}`));
    if (outcome === 'CREATED') tally.created = (tally.created ?? 0) + 1;
    if (outcome === 'CREATED' || outcome === 'REUSED') {
      answered.add(key);
      tally.keys = answered.size;
    }
    return outcome;
  };
};
