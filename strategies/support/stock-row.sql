-- One stock row per sku; `available` is a derived count kept in step with the reservation table.
CREATE TABLE sku_stock (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL,
  -- Stops "returned beyond the total" only; returning too much below the total passes (the flash-sale
  -- lab's unconditional-expiry counter-example).
  CONSTRAINT available_range CHECK (available >= 0 AND available <= total)
);

-- Checked at commit, when the reserving transaction already holds the stock row through its own UPDATE:
-- an immediate check takes a KEY SHARE lock first, and 150 such lockers mixed with updaters that roll back
-- made PostgreSQL 18.4 fail with XX000 "new multixact has more than one updating member" (contention-aborts,
-- intermittently). Deferred, the check adds no locker beside the updater. An unknown sku is found by
-- takeUnitOrRollBackClaim instead.
ALTER TABLE reservation ADD FOREIGN KEY (sku) REFERENCES sku_stock DEFERRABLE INITIALLY DEFERRED;
