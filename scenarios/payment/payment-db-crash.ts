/**
 * The database crashes under a payment: a worker is held before its commit with its payment and outbox
 * row written, and the server is stopped with an immediate shutdown (SIGQUIT to the postmaster), then
 * started again on the same data directory (crash recovery). The held worker's connection is gone: its
 * pay answers INDETERMINATE (the worker cannot know), and the client retries the same request on the
 * restarted server. Nothing of the held pay committed, so recovery rolls it back and the retry must
 * create the payment: CREATED, one payment, one outbox row — and the history check must find an order in
 * which the crashed pay never took effect. n/a on a server the run cannot restart (`--database-url`).
 */

import { definePaymentScenario } from '../../harness/contracts/payment/case/payment-scenario.ts';
import { paymentRequest } from '../../harness/contracts/payment/spec/seed-payment.ts';

const KEY = 'idem-order-6006';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-db-crash',
  summary: 'the database crashes (SIGQUIT) while a pay is held before its commit; the request retried after',
  holdAt: ['before-commit'],
  crashesDatabase: true,
  async run(ctx) {
    const request = paymentRequest(KEY, 'pay-db-crash');
    const held = ctx.startPay(request, ctx.holdAt);
    ctx.observe('heldAtCrash', (await held.reached) === 'paused' ? 1 : 0);
    await ctx.crashDatabase();
    const cut = await held.resume();
    ctx.observe('cutByCrash', cut.outcome === 'INDETERMINATE' ? 1 : 0);
    await ctx.pay(request);
    const counts = await ctx.countsFor(KEY);
    ctx.observe('counts', { payment: counts.payments, outbox: counts.outbox });
  },
  expect: {
    outcomes: { INDETERMINATE: 1, CREATED: 1 },
    observations: { counts: { payment: 1, outbox: 1 } },
    exercised: (seen) => [
      ...(seen.heldAtCrash === 1 ? [] : ['the pay was not held before its commit when the server crashed']),
      ...(seen.cutByCrash === 1 ? [] : ['the crash did not cut the held pay off']),
    ],
  },
});
