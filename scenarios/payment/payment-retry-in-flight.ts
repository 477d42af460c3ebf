/**
 * A request retried while its first attempt is still in flight: the first attempt is held before its
 * commit with its payment written; the client, hearing nothing, sends the same request again (same key,
 * payload and payment id) and the retry is let run until it is seen waiting behind the first, or done.
 * Then the first attempt's worker dies where it is held (pg_terminate_backend: nothing of it committed),
 * the retry goes on, and the client sends the request a last time. The key ends with one payment and one
 * outbox row; the retry that paid answers CREATED and the last one REUSED. Whether the retry waits is the
 * design's business (a unique key makes it wait, SSI need not), so it is observed, never expected.
 */

import { definePaymentScenario } from '../../harness/contracts/payment/case/payment-scenario.ts';
import { paymentRequest } from '../../harness/contracts/payment/spec/seed-payment.ts';

const KEY = 'idem-order-5005';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-retry-in-flight',
  summary:
    'a request retried while its first attempt is held before its commit; the first dies, then a last retry',
  holdAt: ['before-commit'],
  async run(ctx) {
    const request = paymentRequest(KEY, 'pay-in-flight');
    const first = ctx.startPay(request, ctx.holdAt);
    ctx.observe('firstHeld', (await first.reached) === 'paused' ? 1 : 0);
    const retry = ctx.startPay(request);
    ctx.observe('retryWhileHeld', await retry.blockedOrDone());
    await first.kill();
    await retry.resume();
    await ctx.pay(request);
    const counts = await ctx.countsFor(KEY);
    ctx.observe('counts', { payment: counts.payments, outbox: counts.outbox });
  },
  expect: {
    outcomes: { ROLLED_BACK: 1, CREATED: 1, REUSED: 1 },
    observations: { counts: { payment: 1, outbox: 1 } },
    exercised: (seen) =>
      seen.firstHeld === 1 ? [] : ['the first attempt was not held before its commit when it died'],
  },
});
