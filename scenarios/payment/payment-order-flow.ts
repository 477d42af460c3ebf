/**
 * Issue 28's combined order flow: reserve a unit under the order's key (hot-row), confirm it, pay with
 * the order's key (the design under test). One order per pause point the two designs declare — reserve's,
 * confirm's, pay's, in turn — is killed -9 there in a crash child (after the steps before it ran), then the
 * flow is retried from the top with the same keys. The harness then reads every order's reservation, the
 * stock and the payments itself: units gone equal orders holding one (soldMatchesOrders), no payment for
 * an order not CONFIRMED (paidUnconfirmed), one payment per key and its one outbox row (onePaymentPerKey,
 * outboxMatchesPayment); every retry ends confirmed and paid.
 */

import { definePaymentScenario } from '../../harness/contracts/payment/case/payment-scenario.ts';
import { LAB_SKU } from '../../harness/contracts/reservation/case/scenario.ts';

const STOCK = { sku: LAB_SKU, total: 10 };

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-order-flow',
  summary:
    'reserve (hot-row), confirm, pay under the order key, killed -9 at each pause point of each step, retried from the top',
  orderFlow: { strategy: 'hot-row', stock: STOCK },
  async run(ctx) {
    const { orders } = ctx;
    if (!orders) throw new Error('payment-order-flow runs with an order flow');
    if (orders.crashPoints.length >= STOCK.total) throw new Error('more crash points than units to sell');
    let notKilled = 0;
    let unfinished = 0;
    for (const [i, at] of orders.crashPoints.entries()) {
      const crash = await orders.crash(i + 1, at);
      if (crash.stage !== at.point || crash.signal !== 'SIGKILL') notKilled += 1;
      const retry = await orders.run(i + 1);
      if (!retry.confirmed || (retry.pay !== 'CREATED' && retry.pay !== 'REUSED')) unfinished += 1;
    }
    ctx.observe('crashedAt', orders.crashPoints.map((at) => `${at.step}:${at.point}`).join(', '));
    ctx.observe('notKilled', notKilled);
    ctx.observe('unfinished', unfinished);
  },
  expect: {
    observations: { notKilled: 0, unfinished: 0 },
    exercised: (seen) =>
      String(seen.crashedAt ?? '').includes('pay:')
        ? []
        : ['no pay step was killed: the design declares no pause point'],
  },
});
