/**
 * The payment and outbox tables every payment design shares: creating them, the two writes of a new
 * payment, the recorded answer for a key, and the reads the harness and the audit make.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type {
  OutboxRecord,
  PaymentAudit,
  PaymentRecord,
  PaymentRequest,
  PaymentResponse,
  PaymentResult,
} from '../contract.ts';

const PAYMENT_SQL = readFileSync(new URL('./payment.sql', import.meta.url), 'utf8');

const SQL = {
  uniqueKey: 'CREATE UNIQUE INDEX payment_key_unique ON payment (idempotency_key)',
  insertPayment: `INSERT INTO payment (payment_id, idempotency_key, fingerprint, order_id, amount, currency)
                  VALUES ($1, $2, $3, $4, $5, $6)`,
  claimKey: `INSERT INTO payment (payment_id, idempotency_key, fingerprint, order_id, amount, currency)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (idempotency_key) DO NOTHING`,
  insertOutbox: `INSERT INTO payment_outbox (payment_id, idempotency_key, event)
                 VALUES ($1, $2, 'payment.created')`,
  paymentsFor: `SELECT payment_id, fingerprint, order_id, amount, currency FROM payment
                WHERE idempotency_key = $1 ORDER BY payment_id`,
  outboxFor: 'SELECT payment_id FROM payment_outbox WHERE idempotency_key = $1 ORDER BY outbox_id',
  audit: `SELECT
            (SELECT count(*) FROM payment)::int AS payments,
            (SELECT count(*) FROM payment_outbox)::int AS outbox,
            (SELECT count(*) FROM (SELECT 1 FROM payment GROUP BY idempotency_key HAVING count(*) > 1) k)::int
              AS keys_with_many_payments,
            (SELECT count(*) FROM payment p WHERE NOT EXISTS
               (SELECT 1 FROM payment_outbox o WHERE o.payment_id = p.payment_id))::int AS payments_without_outbox,
            (SELECT count(*) FROM payment_outbox o WHERE NOT EXISTS
               (SELECT 1 FROM payment p WHERE p.payment_id = o.payment_id))::int AS outbox_without_payment`,
} as const;

/** Creates both tables; `uniqueKey` adds the unique index on idempotency_key. */
export async function createPaymentTables(db: ClientBase, options: { uniqueKey: boolean }): Promise<void> {
  await db.query(PAYMENT_SQL);
  if (options.uniqueKey) await db.query(SQL.uniqueKey);
}

export function responseOf(request: PaymentRequest): PaymentResponse {
  const { paymentId, order, amount, currency } = request;
  return { paymentId, order, amount, currency };
}

/** The payment row alone (the first of a new payment's two writes). */
export async function insertPayment(db: ClientBase, request: PaymentRequest): Promise<void> {
  const { paymentId, idempotencyKey, fingerprint, order, amount, currency } = request;
  await db.query(SQL.insertPayment, [paymentId, idempotencyKey, fingerprint, order, amount, currency]);
}

/**
 * The isolation-matrix chapter's claim on a unique key: true when this request's payment row went in. When
 * another request's uncommitted row holds the key, the insert waits for it to end; when that committed, it
 * does nothing.
 */
export async function claimKey(db: ClientBase, request: PaymentRequest): Promise<boolean> {
  const { paymentId, idempotencyKey, fingerprint, order, amount, currency } = request;
  const claimed = await db.query(SQL.claimKey, [
    paymentId,
    idempotencyKey,
    fingerprint,
    order,
    amount,
    currency,
  ]);
  return claimed.rowCount === 1;
}

export async function insertOutbox(db: ClientBase, request: PaymentRequest): Promise<void> {
  await db.query(SQL.insertOutbox, [request.paymentId, request.idempotencyKey]);
}

export async function paymentsFor(db: ClientBase, idempotencyKey: string): Promise<PaymentRecord[]> {
  const { rows } = await db.query<{
    payment_id: string;
    fingerprint: string;
    order_id: string;
    amount: string;
    currency: string;
  }>(SQL.paymentsFor, [idempotencyKey]);
  return rows.map((r) => ({
    paymentId: r.payment_id,
    fingerprint: r.fingerprint,
    order: r.order_id,
    amount: Number(r.amount),
    currency: r.currency,
  }));
}

export async function outboxFor(db: ClientBase, idempotencyKey: string): Promise<OutboxRecord[]> {
  const { rows } = await db.query<{ payment_id: string }>(SQL.outboxFor, [idempotencyKey]);
  return rows.map((r) => ({ paymentId: r.payment_id }));
}

/**
 * The answer for a key already recorded: REUSED with the recorded response when the fingerprint is the
 * same, MISMATCH when it is not (`compareFingerprint: false` is the control that skips the comparison).
 * Null when no payment has the key.
 */
export async function answerForRecordedPayment(
  db: ClientBase,
  request: PaymentRequest,
  options: { compareFingerprint: boolean } = { compareFingerprint: true },
): Promise<PaymentResult | null> {
  const [recorded] = await paymentsFor(db, request.idempotencyKey);
  if (!recorded) return null;
  if (options.compareFingerprint && recorded.fingerprint !== request.fingerprint)
    return { outcome: 'MISMATCH' };
  const { fingerprint: _, ...response } = recorded;
  return { outcome: 'REUSED', response };
}

export async function auditPayments(db: ClientBase): Promise<PaymentAudit> {
  const { rows } = await db.query<{
    payments: number;
    outbox: number;
    keys_with_many_payments: number;
    payments_without_outbox: number;
    outbox_without_payment: number;
  }>(SQL.audit);
  const row = rows[0];
  if (!row) throw new Error('the payment audit returned no row');
  return {
    payments: row.payments,
    outbox: row.outbox,
    keysWithManyPayments: row.keys_with_many_payments,
    paymentsWithoutOutbox: row.payments_without_outbox,
    outboxWithoutPayment: row.outbox_without_payment,
  };
}

/** The members every design built on these tables shares. */
export const PAYMENT_TABLE_READS = {
  paymentStatus: paymentsFor,
  outboxFor,
  audit: auditPayments,
} as const;

/** A request that cannot be paid: no key, no fingerprint, or an amount that is not a positive whole number. */
export function isBadPayment(request: PaymentRequest): boolean {
  return (
    request.idempotencyKey.length === 0 ||
    request.fingerprint.length === 0 ||
    !Number.isSafeInteger(request.amount) ||
    request.amount <= 0
  );
}
