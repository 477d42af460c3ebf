-- One stock row per sku and one row per reservation (seed 000's Inventory.SCHEMA).
-- The reservation table is the truth; sku_stock.available is a derived count kept in step with it.
CREATE TABLE sku_stock (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL,
  -- Stops "returned beyond the total" only; returning too much below the total passes (seed C28-10).
  CONSTRAINT available_range CHECK (available >= 0 AND available <= total)
);

CREATE TABLE reservation (
  reservation_id bigserial   PRIMARY KEY,
  request_key    text        NOT NULL UNIQUE,
  user_id        text        NOT NULL,
  sku            text        NOT NULL REFERENCES sku_stock,
  status         text        NOT NULL CHECK (status IN ('HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED')),
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
