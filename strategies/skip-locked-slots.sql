-- Stock pre-split into one row per unit (the flash-sale lab, design B). A slot is free while holder_key is
-- NULL; the holder is the reservation's request_key, so a slot can only be held by a recorded reservation.
CREATE TABLE sku (
  sku   text PRIMARY KEY,
  total int  NOT NULL CHECK (total >= 0)
);

CREATE TABLE stock_slot (
  sku        text NOT NULL REFERENCES sku,
  slot_no    int  NOT NULL,
  holder_key text UNIQUE REFERENCES reservation (request_key),
  PRIMARY KEY (sku, slot_no)
);

ALTER TABLE reservation ADD FOREIGN KEY (sku) REFERENCES sku;

-- Free slots by number: without it every claim scans past the slots already held.
CREATE INDEX stock_slot_free ON stock_slot (sku, slot_no) WHERE holder_key IS NULL;
