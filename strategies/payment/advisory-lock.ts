/**
 * payment-advisory-lock — every request takes a transaction-scoped advisory lock on its key
 * (`pg_advisory_xact_lock(hashtextextended(key, 0))`) before it looks the key up.
 *
 * Correct because: the lock serialises every request of one key, so the look-up and the two writes of a
 * new payment happen with no other request of the key in between; the lock goes with COMMIT or ROLLBACK,
 * so a waiting request's look-up (a new READ COMMITTED snapshot) sees the winner's committed rows. Keys
 * whose hashes collide only wait for each other.
 *
 * Breaks when: a writer of the table skips the lock (nothing in the schema enforces it: there is no
 * unique key), or the lock is taken at session scope and outlives a rolled-back attempt.
 *
 * Lifecycle: one transaction per request. Pause points: pay `before-commit` (payment and outbox
 * written, the lock held). No `after-read`: a worker held there would hold the lock every other worker
 * of the key needs to get there.
 */

import { inTransaction } from '../support/transaction.ts';
import type { PaymentDesign, PaymentResult } from './contract.ts';
import {
  answerForRecordedPayment,
  createPaymentTables,
  insertOutbox,
  insertPayment,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from './support/payment-tables.ts';

const SQL = {
  lockKey: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
} as const;

const paymentAdvisoryLock: PaymentDesign = {
  contract: 'payment',
  id: 'payment-advisory-lock',
  title: 'Advisory transaction lock on the key, then look up and write',
  guarantee: 'pg_advisory_xact_lock on the key serialises its requests; the lock ends with the transaction',
  expect: 'hold',
  needs: ['advisoryLocks'],
  pausePoints: { pay: ['before-commit'] },

  setup: (db) => createPaymentTables(db, { uniqueKey: false }),

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const { db } = ctx;
    return inTransaction(db, async (): Promise<PaymentResult> => {
      await db.query(SQL.lockKey, [request.idempotencyKey]);
      const recorded = await answerForRecordedPayment(db, request);
      if (recorded) return recorded;
      await insertPayment(db, request);
      await insertOutbox(db, request);
      await ctx.pause('before-commit');
      return { outcome: 'CREATED', response: responseOf(request) };
    });
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentAdvisoryLock;
