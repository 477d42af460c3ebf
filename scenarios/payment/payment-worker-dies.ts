/**
 * A worker dies mid-payment: it is held at its last pause point before the outbox is committed
 * (`between-transactions` where the design commits twice, else `before-commit`) and its backend is
 * terminated there; then the key is retried on a new session. Nothing of the dead worker may survive
 * a commit it never reached, and the retry ends with one payment and exactly one outbox row announcing it.
 */
import { paymentRequest } from '../../harness/interleaving/seed-payment.ts';
import { definePaymentScenario } from '../../harness/scenario/payment/payment-scenario.ts';

const KEY = 'idem-order-3003';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-worker-dies',
  summary: 'a worker terminated at its last pause point before the outbox commits, then the key retried',
  holdAt: ['between-transactions', 'before-commit'],
  async run(ctx) {
    const dying = ctx.startPay(paymentRequest(KEY, 'pay-dies'), ctx.holdAt);
    ctx.observe('killedHeld', (await dying.reached) === 'paused' ? 1 : 0);
    await dying.kill();
    await ctx.pay(paymentRequest(KEY, 'pay-retry'));
    const counts = await ctx.countsFor(KEY);
    ctx.observe('counts', { payment: counts.payments, outbox: counts.outbox });
  },
  expect: {
    outcomes: { ROLLED_BACK: 1, CREATED: 1 },
    observations: { counts: { payment: 1, outbox: 1 } },
    exercised: (seen) =>
      seen.killedHeld === 1 ? [] : ['the worker was not held at its pause point when killed'],
  },
});
