/**
 * Seed 002's lab: two payment workers send idem-order-1001 with the same fingerprint (sha256 over
 * amount=3000, currency=CNY, merchant=demo), each proposing its own payment id. The first is held with
 * its writes done and its transaction open; the second is let run until it is seen waiting behind the
 * first (pg_blocking_pids), retrying, or done; then the first commits. The loser reads the winner's
 * response with its next statement: requests 2, inserted 1, reused 1, distinct responses 1, payment 1,
 * outbox 1 — whichever session wins, which is never asserted.
 */
import { paymentRequest } from '../../harness/interleaving/seed-payment.ts';
import { definePaymentScenario, seedFigures } from '../../harness/scenario/payment/payment-scenario.ts';

const KEY = 'idem-order-1001';

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-seed-workers',
  summary:
    'seed 002: two workers, one key and fingerprint, the first held before its commit while the second runs',
  holdAt: ['before-commit', 'between-transactions'],
  async run(ctx) {
    const first = ctx.startPay(paymentRequest(KEY, 'pay-worker-a'), ctx.holdAt);
    ctx.observe('firstHeld', (await first.reached) === 'paused' ? 1 : 0);
    const second = ctx.startPay(paymentRequest(KEY, 'pay-worker-b'));
    ctx.observe('secondWhileHeld', await second.blockedOrDone());
    const answers = [await first.resume(), await second.resume()];
    ctx.observe('figures', seedFigures(answers, await ctx.countsFor(KEY)));
  },
  expect: {
    outcomes: { CREATED: 1, REUSED: 1 },
    observations: {
      figures: { requests: 2, inserted: 1, reused: 1, distinctResponses: 1, payment: 1, outbox: 1 },
    },
    exercised: (seen) => (seen.firstHeld === 1 ? [] : ['the first worker never reached its pause point']),
  },
});
