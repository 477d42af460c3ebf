-- The frozen-stock chapter's books: per sku the counters it keeps (available, frozen, total) and `sold` for
-- the units a payment took out of `frozen`. Every move is a conditional UPDATE that moves a unit from one
-- counter to another, so available + frozen + sold = total holds after each committed statement.
-- Of the moving counters only `available` has a CHECK (>= 0, which the freeze's condition already keeps).
-- The identity is reconciled, as the chapter does every day, not CHECKed: a CHECK would stop a release that
-- forgets `available` at its statement (23514), whereas the chapter's design, and its controls in
-- strategies/controls/, are about what the reconciliation and the ledger find afterwards.
CREATE TABLE stock_account (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL CHECK (available >= 0),
  frozen    int  NOT NULL,
  sold      int  NOT NULL
);

-- True while this reservation's unit sits in `frozen`. The insert writes it true because the insert and
-- the freeze commit together or not at all (no unit → the insert is rolled back to its savepoint); setting
-- it in a second statement would be a second write to a row a concurrent replay may be inserting against
-- (the 40P01 memory-quota.sql describes). Confirm, release and expire move a row only while it is set, and
-- clear it in the statement that moves the unit, so a second caller finds nothing left to move.
ALTER TABLE reservation ADD COLUMN stock_frozen boolean NOT NULL DEFAULT true;

-- Deferred for the reason stock-row.sql gives: at commit the reserving transaction already holds the
-- account row through its own UPDATE, so the check adds no locker beside the updater.
ALTER TABLE reservation ADD FOREIGN KEY (sku) REFERENCES stock_account DEFERRABLE INITIALLY DEFERRED;

-- One entry per move, written by the statement that moves the counters (the frozen-stock chapter's stock
-- journal: order number, action, quantity, time). STOCK_IN puts the stock on the books at setup, so replaying
-- the ledger from zero gives every counter. request_key has no foreign key: an entry is evidence and outlives
-- whatever happens to the order.
CREATE TABLE stock_ledger (
  entry_id    bigserial   PRIMARY KEY,
  sku         text        NOT NULL REFERENCES stock_account DEFERRABLE INITIALLY DEFERRED,
  request_key text,
  action      text        NOT NULL CHECK (action IN ('STOCK_IN', 'FREEZE', 'CONFIRM', 'RELEASE', 'EXPIRE')),
  qty         int         NOT NULL CHECK (qty > 0),
  at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((action = 'STOCK_IN') = (request_key IS NULL))
);

-- Append-only: a correction is a new entry, never an edit of history (the chapter's discipline), so the
-- ledger stays a complete chain of evidence the counters can be replayed from.
CREATE FUNCTION stock_ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'stock_ledger is append-only: % refused', TG_OP;
END
$$;

CREATE TRIGGER stock_ledger_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON stock_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION stock_ledger_refuse_change();
