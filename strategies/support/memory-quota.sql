-- Each node keeps its share of the stock in memory; the reservation table is the sales ledger, each sale
-- tagged with the node that made it. node_share records the shares nodes started with, for the audit.
CREATE TABLE quota_sku (
  sku   text PRIMARY KEY,
  total int  NOT NULL CHECK (total >= 0)
);

CREATE TABLE node_share (
  node  text NOT NULL,
  sku   text NOT NULL REFERENCES quota_sku,
  share int  NOT NULL CHECK (share >= 0),
  PRIMARY KEY (node, sku)
);

ALTER TABLE reservation ADD FOREIGN KEY (sku) REFERENCES quota_sku;
-- The selling node comes in with the insert itself (set per transaction by the strategy): a second write
-- to the new row would add index entries after the insert, and a concurrent replay's speculative insert
-- on the user index then deadlocks with it (40P01, seen in duplicate-key).
ALTER TABLE reservation ADD COLUMN node text DEFAULT current_setting('reservebench.node', true);
CREATE INDEX reservation_node_sales ON reservation (node, sku) WHERE status IN ('HELD', 'CONFIRMED');
