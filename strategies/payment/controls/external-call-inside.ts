/**
 * payment-external-call-inside — COST CONTROL (expect: hold). The isolation-matrix chapter's design
 * (payment-on-conflict), with a simulated external call (a risk check, the frozen-stock chapter's) made
 * inside the transaction, once the key is claimed and its outbox row written, before the commit: the wait is
 * the thing under test. Its length is the knob `callMs` (default 800, the frozen-stock chapter's call;
 * `--param payment-external-call-inside.callMs=0,50,800`).
 *
 * Correct because: it is on-conflict's transaction, only longer. The unique key still admits one payment
 * per key; a duplicate waits on the winner's uncommitted index entry for the whole call, then reads it.
 *
 * Breaks when: never in correctness; it is kept to show a cost. The frozen-stock chapter's rule (no external
 * call inside the stock or payment transaction) is about what the bench shows: under contention every
 * duplicate of a key waits behind the call, so each key's answers take callMs at least and its waiters stay
 * in line.
 *
 * Lifecycle: one transaction per request; the call holds it open, idle, with the key's entry locked.
 * Pause points: pay `before-commit` (payment and outbox written, call made, transaction open).
 */

import { setTimeout as externalCall } from 'node:timers/promises';
import type { PaymentDesign } from '../contract.ts';
import { onConflictPay } from '../on-conflict.ts';
import { createPaymentTables, PAYMENT_TABLE_READS } from '../support/payment-tables.ts';

/** The frozen-stock chapter's risk call inside the order transaction: 800 ms. */
const RISK_CHECK_MS = 800;

/** The call is made with the key claimed and the transaction open: what the frozen-stock chapter forbids. */
const payWithCallInside = (callMs: number): PaymentDesign['pay'] =>
  onConflictPay(async () => {
    await externalCall(callMs);
  });

const paymentExternalCallInside: PaymentDesign = {
  contract: 'payment',
  id: 'payment-external-call-inside',
  title: 'payment-on-conflict with a simulated external call inside the transaction',
  guarantee:
    "correct (on-conflict's unique key), kept to show a cost: every duplicate of a key waits behind the call",
  expect: 'hold',
  pausePoints: { pay: ['before-commit'] },
  parameters: {
    callMs: {
      describe: 'ms the simulated external call takes inside the transaction',
      default: RISK_CHECK_MS,
      min: 0,
      max: 10_000,
      // The call only waits: the explorer's orders are its own, so it explores the design without it.
      explored: 0,
    },
  },
  configure: (values) => ({
    ...paymentExternalCallInside,
    pay: payWithCallInside(values.callMs ?? RISK_CHECK_MS),
  }),

  setup: (db) => createPaymentTables(db, { uniqueKey: true }),
  pay: payWithCallInside(RISK_CHECK_MS),
  ...PAYMENT_TABLE_READS,
};

export default paymentExternalCallInside;
