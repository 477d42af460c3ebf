-- The frozen-stock chapter's stock buckets: a sku's stock split over bucket rows, so reservations of one hot
-- sku queue on N row locks instead of one. Each bucket is a hot-row counter of its own share.
CREATE TABLE stock_bucket (
  sku       text NOT NULL,
  bucket_no int  NOT NULL CHECK (bucket_no >= 0),
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL,
  PRIMARY KEY (sku, bucket_no),
  CONSTRAINT available_range CHECK (available >= 0 AND available <= total)
);

-- The bucket each active reservation's unit came from, so a release or an expiry gives it back there.
-- A table of its own rather than a column of reservation: the bucket is known only after the row is
-- inserted, and a second write to the new row can deadlock with a concurrent replay's insert (the 40P01
-- memory-quota.sql describes). Written by the statement that takes the unit, from its RETURNING.
-- reservation has no foreign key to a sku row: every reserve would lock that one row again (KEY SHARE), the
-- hot spot the buckets exist to split; an unknown sku is found when no bucket row has it.
CREATE TABLE bucket_take (
  request_key text PRIMARY KEY REFERENCES reservation (request_key) DEFERRABLE INITIALLY DEFERRED,
  sku         text NOT NULL,
  bucket_no   int  NOT NULL,
  -- Checked at commit, when the taking transaction already holds the bucket row through its own UPDATE.
  FOREIGN KEY (sku, bucket_no) REFERENCES stock_bucket DEFERRABLE INITIALLY DEFERRED
);
