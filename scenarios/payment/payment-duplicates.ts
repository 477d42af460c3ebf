/**
 * Many concurrent duplicates of one key: 20 workers, one key and payload, each proposing its own
 * payment id, connected first and started together (held together at `after-read`, where the design
 * passes one, so every look-up precedes every write). One payment, one outbox row, one CREATED and 19
 * REUSED answers carrying its response.
 */

import { definePaymentScenario, seedFigures } from '../../harness/contracts/payment/case/payment-scenario.ts';
import { paymentRequest } from '../../harness/contracts/payment/spec/seed-payment.ts';

const KEY = 'idem-order-2002';
const WORKERS = 20;

export default definePaymentScenario({
  contract: 'payment',
  id: 'payment-duplicates',
  sessions: WORKERS,
  summary: `${WORKERS} workers send one key and payload at once (held together after their look-up where the design has one)`,
  async run(ctx) {
    const requests = Array.from({ length: WORKERS }, (_, i) =>
      paymentRequest(KEY, `pay-dup-${String(i + 1).padStart(2, '0')}`),
    );
    const holdAt = ctx.design.pausePoints.pay.includes('after-read') ? 'after-read' : undefined;
    const answers = await ctx.payTogether(requests, holdAt);
    ctx.observe('figures', seedFigures(answers, await ctx.countsFor(KEY)));
  },
  expect: {
    outcomes: { CREATED: 1, REUSED: WORKERS - 1 },
    observations: {
      figures: {
        requests: WORKERS,
        inserted: 1,
        reused: WORKERS - 1,
        distinctResponses: 1,
        payment: 1,
        outbox: 1,
      },
    },
  },
});
