-- One row per reservation (the flash-sale lab's Inventory.SCHEMA): the truth every stock count is checked
-- against. Each design adds its own stock tables and ties `sku` to them with a foreign key.
CREATE TABLE reservation (
  reservation_id bigserial   PRIMARY KEY,
  request_key    text        NOT NULL UNIQUE,
  user_id        text        NOT NULL,
  sku            text        NOT NULL,
  status         text        NOT NULL CHECK (status IN ('HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED')),
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
