/**
 * A worker dies mid-payment, as a spec: w1 is held at its last pause point before the outbox is
 * committed (`between-transactions` where the design commits twice, else `before-commit`) and killed
 * there (RESUME KILL: its backend terminated as a `kill -9` of its process would end it); then w2 retries
 * the key. Nothing of the dead worker may survive a commit it never reached, and the retry ends with one
 * payment and exactly one outbox row announcing it. Its answers depend on the order (a retry before the
 * kill is answered REUSED or waits), so only the listed order's are compared.
 */
import { definePaymentScenario } from '../../harness/contracts/payment/case/payment-scenario.ts';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-worker-dies',
  summary: 'a worker terminated at its last pause point before the outbox commits, then the key retried',
  holdAt: ['between-transactions', 'before-commit'],
  spec: (holdAt) => `
    session w1
    step "w1-pay"   { PAY idem-order-3003 pay-dies UNTIL ${holdAt} }
    step "w1-kill"  { RESUME KILL }

    session w2
    step "w2-retry" { PAY idem-order-3003 pay-retry }

    permutation "w1-pay" "w1-kill" "w2-retry"
  `,
  observe: ({ counts }) => ({ counts: { payment: counts.payments, outbox: counts.outbox } }),
  expect: {
    outcomes: { ROLLED_BACK: 1, CREATED: 1 },
    observations: { counts: { payment: 1, outbox: 1 } },
    orderDependent: true,
  },
});
