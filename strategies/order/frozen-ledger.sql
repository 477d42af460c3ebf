-- The frozen-stock chapter's books for orders: per sku the counters the chapter keeps (available, frozen,
-- total), moved only by conditional updates that move a quantity from one counter to the other, so available
-- + frozen = total holds after each committed statement. The identity is reconciled (the chapter's daily
-- check), not CHECKed, so a move that forgets one side shows in the audit rather than as an error.
CREATE TABLE order_account (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL CHECK (available >= 0),
  frozen    int  NOT NULL
);

-- Deferred for the reason strategies/support/stock-row.sql gives (the freezing transaction holds the account
-- row through its own UPDATE at commit).
ALTER TABLE order_line ADD FOREIGN KEY (sku) REFERENCES order_account DEFERRABLE INITIALLY DEFERRED;

-- One entry per line moved (the frozen-stock chapter's stock journal: order number, action, quantity, time),
-- written by the statement that moves the counters or by the one beside it in the same transaction. STOCK_IN
-- puts the stock on the books at setup, so replaying the ledger from zero gives every counter.
CREATE TABLE order_ledger (
  entry_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sku         text        NOT NULL REFERENCES order_account DEFERRABLE INITIALLY DEFERRED,
  request_key text,
  action      text        NOT NULL CHECK (action IN ('STOCK_IN', 'FREEZE', 'RELEASE', 'EXPIRE')),
  qty         int         NOT NULL CHECK (qty > 0),
  at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((action = 'STOCK_IN') = (request_key IS NULL))
);

-- Append-only: a correction is a new entry, never an edit of history (the chapter's discipline).
CREATE FUNCTION order_ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'order_ledger is append-only: % refused', TG_OP;
END
$$;

CREATE TRIGGER order_ledger_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON order_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION order_ledger_refuse_change();
