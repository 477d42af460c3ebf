-- The orders every order design shares: one row per request_key with the cart as it was asked (to tell a
-- replay from a reused key), and one row per line the order holds or held. Each design adds its own stock
-- tables and ties order_line.sku to them with a foreign key.
CREATE TABLE shop_order (
  order_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_key text        NOT NULL UNIQUE,
  user_id     text        NOT NULL,
  -- The cart in canonical form (cart.ts, cartText): its lines sorted by sku, `sku:qty` joined by commas.
  cart        text        NOT NULL,
  status      text        NOT NULL CHECK (status IN ('HELD', 'RELEASED', 'EXPIRED')),
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- request_key is repeated here so that the harness's lines(key) reads a line even where its order is gone
-- (a line under no order is a finding, not something to hide behind a join).
CREATE TABLE order_line (
  line_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id    bigint NOT NULL REFERENCES shop_order,
  request_key text   NOT NULL,
  sku         text   NOT NULL,
  qty         int    NOT NULL CHECK (qty > 0)
);
CREATE INDEX order_line_by_order ON order_line (order_id);
CREATE INDEX order_line_by_key ON order_line (request_key);
