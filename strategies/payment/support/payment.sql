-- The payment and its outbox row, shared by every payment design; the unique key on idempotency_key is
-- added by the designs that rely on it (payment-tables.ts).
CREATE TABLE payment (
  payment_id text PRIMARY KEY,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  order_id text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL
);
CREATE INDEX payment_by_key ON payment (idempotency_key);
CREATE TABLE payment_outbox (
  outbox_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payment_id text NOT NULL,
  idempotency_key text NOT NULL,
  event text NOT NULL
);
CREATE INDEX payment_outbox_by_key ON payment_outbox (idempotency_key);
