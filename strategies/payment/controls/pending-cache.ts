/**
 * payment-pending-cache — NEGATIVE CONTROL (expect: violate). The isolation-matrix chapter's design (unique
 * key, INSERT … ON CONFLICT DO NOTHING, read the winner) in front of an in-process response cache, as a
 * service keeps one to answer duplicates without a round trip: the winner puts its response in the cache as
 * soon as its payment is written, and a duplicate found in the cache is answered from it. An entry is dropped
 * when the transaction that put it fails.
 *
 * What it gets wrong: the entry goes in before the payment's commit. A duplicate that arrives meanwhile is
 * answered REUSED with a payment that does not exist yet, and may never: if the winner dies before its
 * commit, the client has been told of a payment nobody made, and the next retry creates it — CREATED after
 * a REUSED that came back before it was even sent. The key ends with one payment, one outbox row and one
 * response that every answer carries, in the very counts a safe design gives: only the order is wrong.
 *
 * How the suite catches it every run: payment-retry-in-flight holds the first attempt at `before-commit`,
 * sends the retry (answered from the cache at once), kills the first attempt and retries again; the
 * history check (`linearizable`) finds no order in which the REUSED follows a payment.
 *
 * Pause points: pay `before-commit` (payment and outbox written, the cache filled, transaction open).
 */

import type { PaymentDesign, PaymentRequest, PaymentResponse } from '../contract.ts';
import { onConflictPay } from '../on-conflict.ts';
import {
  createPaymentTables,
  isBadPayment,
  PAYMENT_TABLE_READS,
  responseOf,
} from '../support/payment-tables.ts';

/** Responses by key, put in when a payment is written. Emptied by setup: each case starts with none. */
const cache = new Map<string, { fingerprint: string; response: PaymentResponse }>();

const paymentPendingCache: PaymentDesign = {
  contract: 'payment',
  id: 'payment-pending-cache',
  title: 'Unique key behind a response cache filled before the commit',
  guarantee: 'none in flight: a duplicate is told REUSED of a payment that has not committed, and may not',
  expect: 'violate',
  caughtBy: { 'payment-retry-in-flight': ['linearizable'] },
  pausePoints: { pay: ['before-commit'] },

  setup: async (db) => {
    cache.clear();
    await createPaymentTables(db, { uniqueKey: true });
  },

  pay: async (ctx, request) => {
    if (isBadPayment(request)) return { outcome: 'BAD_REQUEST' };
    const cached = cache.get(request.idempotencyKey);
    if (cached)
      return cached.fingerprint === request.fingerprint
        ? { outcome: 'REUSED', response: cached.response }
        : { outcome: 'MISMATCH' };
    let filled = false;
    const fill = (claimed: PaymentRequest) => {
      cache.set(claimed.idempotencyKey, { fingerprint: claimed.fingerprint, response: responseOf(claimed) });
      filled = true;
    };
    try {
      return await onConflictPay(fill)(ctx, request);
    } catch (error: unknown) {
      if (filled) cache.delete(request.idempotencyKey);
      throw error;
    }
  },

  ...PAYMENT_TABLE_READS,
};

export default paymentPendingCache;
