-- LabReserve: a resource (an instrument) owns slots with a fixed capacity, and the slot's active
-- reservations are the only count of what is taken: no counter beside them. Here each sku is a slot. The
-- harness's stock lines name no resource, and the contract's disable stops one sku, so every sku gets a
-- resource of its own.
CREATE TABLE resource (
  resource_id text PRIMARY KEY,
  status      text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED'))
);

CREATE TABLE slot (
  sku         text PRIMARY KEY,
  resource_id text NOT NULL REFERENCES resource,
  capacity    int  NOT NULL CHECK (capacity >= 0)
);

-- Deferred: an immediate check takes KEY SHARE on the slot row at the insert, which the holder's FOR UPDATE
-- blocks, so every claim (made before the slot lock) would queue behind the transaction holding the slot.
-- At commit the reserving transaction holds the slot FOR UPDATE itself and the check waits for nobody. An
-- unknown sku is found by the resource lookup before anything is inserted.
ALTER TABLE reservation ADD FOREIGN KEY (sku) REFERENCES slot DEFERRABLE INITIALLY DEFERRED;
