/**
 * A lost commit acknowledgement: a worker's payment commits, and the answer never reaches it (a proxy
 * cuts the connection right after the commit's answer). The worker retries with the same key and
 * payload on a new connection, proposing the same payment id: it must be answered REUSED with the
 * payment it already made, never a second payment.
 */

import { definePaymentScenario } from '../../harness/contracts/payment/case/payment-scenario.ts';
import { paymentRequest } from '../../harness/contracts/payment/spec/seed-payment.ts';

const KEY = 'idem-order-4004';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-commit-ack-lost',
  summary: "a payment's commit answer cut off by a proxy; the worker retries the key on a new connection",
  async run(ctx) {
    const request = paymentRequest(KEY, 'pay-ack-lost');
    const lost = await ctx.payWithLostCommitAnswer(request);
    ctx.observe('answerLost', lost.outcome === 'INDETERMINATE' ? 1 : 0);
    const retry = await ctx.pay(request);
    ctx.observe('retryGotItsPayment', retry.response?.paymentId === request.paymentId ? 1 : 0);
    const counts = await ctx.countsFor(KEY);
    ctx.observe('counts', { payment: counts.payments, outbox: counts.outbox });
  },
  expect: {
    outcomes: { INDETERMINATE: 1, REUSED: 1 },
    observations: { retryGotItsPayment: 1, counts: { payment: 1, outbox: 1 } },
    exercised: (seen) =>
      seen.answerLost === 1 ? [] : ['the commit answer reached the worker: nothing was lost'],
  },
});
