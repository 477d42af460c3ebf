-- One stock row per sku; `available` is a derived count kept in step with the reservation table.
CREATE TABLE sku_stock (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL,
  -- Stops "returned beyond the total" only; returning too much below the total passes (seed C28-10).
  CONSTRAINT available_range CHECK (available >= 0 AND available <= total)
);

ALTER TABLE reservation ADD FOREIGN KEY (sku) REFERENCES sku_stock;
