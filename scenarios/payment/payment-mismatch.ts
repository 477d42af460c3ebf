/**
 * The payment drill's counter-example (docs/sources.md), as its spec: idem-order-1001 is paid (3000), then
 * sent again with another payload (amount 9999, so another fingerprint). The second request must be refused —
 * MISMATCH, the chapter's P0001 — and leave both tables' counts at 1, as the harness's final read finds them.
 */
import { definePaymentScenario } from '../../harness/scenario/payment/payment-scenario.ts';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-mismatch',
  summary: 'the payment drill: the same key with amount 9999 after 3000 was paid: MISMATCH, counts stay at 1',
  spec: () => `
    session w1
    step "w1-pay"   { PAY idem-order-1001 pay-first }
    step "w1-other" { PAY idem-order-1001 pay-other-payload AMOUNT 9999 }

    permutation "w1-pay" "w1-other"
  `,
  observe: ({ counts }) => ({ countsAfter: { payment: counts.payments, outbox: counts.outbox } }),
  expect: {
    outcomes: { CREATED: 1, MISMATCH: 1 },
    observations: { countsAfter: { payment: 1, outbox: 1 } },
  },
});
