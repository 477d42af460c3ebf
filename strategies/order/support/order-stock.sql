-- One stock row per sku; `available` is what remains to sell, moved by the designs' own statements.
CREATE TABLE order_stock (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL CHECK (available >= 0)
);

-- Deferred for the reason strategies/support/stock-row.sql gives: at commit the ordering transaction already
-- holds the stock row through its own UPDATE, so the check adds no locker beside the updater. An unknown sku
-- is found by the line that takes it instead.
ALTER TABLE order_line ADD FOREIGN KEY (sku) REFERENCES order_stock DEFERRABLE INITIALLY DEFERRED;
