/**
 * Worker side of a payment series (payment-bench.ts): a client's request n pays key n of its pair's
 * stream with seed 002's payload, proposing a payment id of its own, and tallies what the audit needs:
 * CREATED answers, and the distinct keys answered CREATED or REUSED.
 */
import type { SessionContext } from '../../strategies/contract.ts';
import type { PaymentDesign } from '../../strategies/payment/contract.ts';
import { paymentRequest } from '../interleaving/seed-payment.ts';
import type { BenchThreadResult } from './bench-task.ts';
import { pairKey, payingPair } from './payment-bench.ts';

/** One request of a client's loop, its outcome (the loop counts it, and an exception as ERROR). */
export type SendOnce = (ctx: SessionContext, client: number, n: number) => Promise<string>;

/** The thread's pay: its tally kept in `result.payments`. */
export function payOnce(design: PaymentDesign, result: BenchThreadResult): SendOnce {
  const answered = new Set<string>();
  const tally = { created: 0, keys: 0 };
  result.payments = tally;
  return async (ctx, client, n) => {
    const key = pairKey(payingPair(client), n);
    const { outcome } = await design.pay(ctx, paymentRequest(key, `bench-pay-${client}-${n}`));
    if (outcome === 'CREATED') tally.created += 1;
    if (outcome === 'CREATED' || outcome === 'REUSED') {
      answered.add(key);
      tally.keys = answered.size;
    }
    return outcome;
  };
}
