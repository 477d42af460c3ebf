-- A user may keep any number of RELEASED/EXPIRED rows but at most one HELD or CONFIRMED per sku:
-- the database decides at insert time, so no application check can race it.
CREATE UNIQUE INDEX reservation_one_active ON reservation (sku, user_id)
  WHERE status IN ('HELD', 'CONFIRMED');
