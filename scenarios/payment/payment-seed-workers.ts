/**
 * The isolation-matrix chapter's payment drill, as its spec: two payment workers send idem-order-1001 with
 * the same fingerprint (sha256 over amount=3000, currency=CNY, merchant=demo), each proposing its own payment
 * id. w1 is held with its writes done and its transaction open; w2 is sent, and the engine goes on once it is
 * seen waiting behind w1 (pg_blocking_pids), retrying, or done; then w1 commits. The loser reads the winner's
 * response with its next statement: requests 2, inserted 1, reused 1, distinct responses 1, payment 1,
 * outbox 1 — whichever session wins, which is never asserted.
 */
import { definePaymentScenario, seedFigures } from '../../harness/scenario/payment/payment-scenario.ts';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-seed-workers',
  summary:
    'the payment drill: two workers, one key and fingerprint, the first held before its commit while the second runs',
  holdAt: ['before-commit', 'between-transactions'],
  spec: (holdAt) => `
    session w1
    step "w1-pay"    { PAY idem-order-1001 pay-worker-a UNTIL ${holdAt} }
    step "w1-commit" { RESUME COMMIT }

    session w2
    step "w2-pay"    { PAY idem-order-1001 pay-worker-b }

    permutation "w1-pay" "w2-pay" "w1-commit"
  `,
  observe: ({ steps, answers, counts }) => {
    const second = steps.find((s) => s.step === 'w2-pay');
    const whileHeld = second?.blocked ? 'blocked' : second?.retrying ? 'retrying' : 'done';
    return { figures: seedFigures(answers, counts), secondWhileHeld: whileHeld };
  },
  expect: {
    outcomes: { CREATED: 1, REUSED: 1 },
    observations: {
      figures: { requests: 2, inserted: 1, reused: 1, distinctResponses: 1, payment: 1, outbox: 1 },
    },
  },
});
