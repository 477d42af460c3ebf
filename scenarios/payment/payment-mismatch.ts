/**
 * Seed 002's counter-example: idem-order-1001 is paid (3000), then sent again with another payload
 * (amount 9999, so another fingerprint). The second request must be refused — MISMATCH, the seed's
 * P0001 — and leave both tables' counts at 1.
 */
import { paymentRequest } from '../../harness/interleaving/seed-payment.ts';
import { definePaymentScenario } from '../../harness/scenario/payment/payment-scenario.ts';

const KEY = 'idem-order-1001';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-mismatch',
  summary: 'seed 002: the same key with amount 9999 after 3000 was paid: MISMATCH, counts stay at 1',
  async run(ctx) {
    await ctx.pay(paymentRequest(KEY, 'pay-first'));
    const before = await ctx.countsFor(KEY);
    await ctx.pay(paymentRequest(KEY, 'pay-other-payload', 9999));
    const after = await ctx.countsFor(KEY);
    ctx.observe('countsBefore', { payment: before.payments, outbox: before.outbox });
    ctx.observe('countsAfter', { payment: after.payments, outbox: after.outbox });
  },
  expect: {
    outcomes: { CREATED: 1, MISMATCH: 1 },
    observations: { countsBefore: { payment: 1, outbox: 1 }, countsAfter: { payment: 1, outbox: 1 } },
  },
});
