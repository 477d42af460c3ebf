/**
 * kill -9 between the payment and the outbox: the worker is a separate Node process (the crash child)
 * running the design's `pay`; at its last pause point before the outbox is committed
 * (`between-transactions` where the design commits twice, else `before-commit`) it prints its stage line
 * and is killed there with SIGKILL; once PostgreSQL has seen its backend go, the key is retried on a new
 * session. The killed call is ROLLED_BACK before a commit, INDETERMINATE after one; either way the key
 * ends with one payment and exactly one outbox row announcing it.
 */

import { definePaymentScenario } from '../../harness/contracts/payment/case/payment-scenario.ts';
import { paymentRequest } from '../../harness/contracts/payment/spec/seed-payment.ts';
import type { OutcomeCounts } from '../../harness/verdict/case-result.ts';

const KEY = 'idem-order-5005';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-kill-9',
  summary:
    'a worker process killed -9 at its last pause point before the outbox commits, then the key retried',
  holdAt: ['between-transactions', 'before-commit'],
  async run(ctx) {
    if (!ctx.holdAt) throw new Error(`${ctx.design.id}'s pay declares no pause point to kill it at`);
    const killed = await ctx.crashPay(paymentRequest(KEY, 'pay-killed'), ctx.holdAt);
    ctx.observe('killedAt', killed.stage);
    ctx.observe('childSignal', killed.signal);
    await ctx.pay(paymentRequest(KEY, 'pay-retry'));
    const counts = await ctx.countsFor(KEY);
    ctx.observe('counts', { payment: counts.payments, outbox: counts.outbox });
  },
  expect: {
    // Killed before its commit, nothing of the worker stays and the retry creates the payment; killed
    // between a design's two commits, its payment stays and the retry reuses it.
    outcomes: (killedAt): OutcomeCounts =>
      killedAt === 'between-transactions' ? { INDETERMINATE: 1, REUSED: 1 } : { ROLLED_BACK: 1, CREATED: 1 },
    observations: { childSignal: 'SIGKILL', counts: { payment: 1, outbox: 1 } },
    exercised: (seen) =>
      seen.killedAt === 'done' ? ['the worker finished before its pause point: nothing was killed'] : [],
  },
});
