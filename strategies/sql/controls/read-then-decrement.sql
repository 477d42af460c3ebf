-- read-then-decrement — NEGATIVE CONTROL (expect: violate), written in SQL: check-then-act as one file of
-- functions. reserve reads `available`, decides on that value, then writes an absolute one
-- (`SET available = <read> - 1`).
--
-- What it gets wrong: the decision is made on a value read before the write, and the write does not
-- re-check it. Between the read and the write nothing is locked, so every call that read 40 writes 39: the
-- updates are lost and the reservations oversell.
--
-- How the suite catches it every run: in contention the harness holds every client at after-read (the
-- pause function's barrier) until all have read, so the window is open for all of them, not by luck.
--
-- @id sql-read-then-decrement
-- @title Read, then decrement, written in SQL: check-then-act as one file of functions
-- @guarantee none: the check is not re-evaluated at write time (lost update)
-- @expect violate
-- @caughtBy.contention oversold
-- @notApplicable negative control: contention is the case that must catch it
-- @pausePoints.reserve after-read, before-commit

CREATE TABLE sku_stock (
  sku       text PRIMARY KEY,
  total     int  NOT NULL CHECK (total >= 0),
  available int  NOT NULL CHECK (available >= 0 AND available <= total)
);

CREATE TABLE reservation (
  reservation_id bigserial   PRIMARY KEY,
  request_key    text        NOT NULL UNIQUE,
  user_id        text        NOT NULL,
  sku            text        NOT NULL,
  status         text        NOT NULL CHECK (status IN ('HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED')),
  expires_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- The database decides "one active hold per user and sku" at insert time, so no check can race it.
CREATE UNIQUE INDEX reservation_one_active ON reservation (sku, user_id)
  WHERE status IN ('HELD', 'CONFIRMED');

CREATE FUNCTION load_stock(sku text, total int) RETURNS void LANGUAGE sql AS $$
  INSERT INTO sku_stock (sku, total, available) VALUES (sku, total, total)
$$;

-- What a key already recorded answers: its status for the same user and sku, KEY_REUSED for another.
CREATE FUNCTION recorded_answer(key text, user_id text, sku text)
RETURNS TABLE (outcome text, status text) LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN same THEN 'REPLAY' ELSE 'KEY_REUSED' END, CASE WHEN same THEN r.status END
    FROM reservation r, LATERAL (SELECT r.user_id = recorded_answer.user_id
                                        AND r.sku = recorded_answer.sku AS same) s
   WHERE r.request_key = key
$$;

CREATE FUNCTION reserve(request_key text, user_id text, sku text, ttl_ms int)
RETURNS TABLE (outcome text, status text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  seen int;
BEGIN
  RETURN QUERY SELECT * FROM recorded_answer(reserve.request_key, reserve.user_id, reserve.sku);
  IF FOUND THEN
    RETURN;
  END IF;
  SELECT s.available INTO seen FROM sku_stock s WHERE s.sku = reserve.sku;
  PERFORM reservebench_pause('after-read');
  IF seen IS NULL OR seen <= 0 THEN
    RETURN QUERY SELECT CASE WHEN seen IS NULL THEN 'BAD_REQUEST' ELSE 'SOLD_OUT' END, NULL::text;
    RETURN;
  END IF;
  INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
  VALUES (reserve.request_key, reserve.user_id, reserve.sku, 'HELD',
          now() + make_interval(secs => reserve.ttl_ms / 1000.0));
  -- The bug: an absolute value computed from the read, not `available - 1 WHERE available > 0`.
  UPDATE sku_stock s SET available = seen - 1 WHERE s.sku = reserve.sku;
  PERFORM reservebench_pause('before-commit');
  RETURN QUERY SELECT 'HELD', 'HELD';
END
$$;

CREATE FUNCTION status(key text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT status FROM reservation WHERE request_key = key
$$;

-- The counter itself, never a count of reservations, or drift could not show a disagreement.
CREATE FUNCTION remaining(sku text) RETURNS int LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT available FROM sku_stock s WHERE s.sku = remaining.sku), 0)
$$;

CREATE FUNCTION audit() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'skus', coalesce((
      SELECT jsonb_agg(jsonb_build_object(
               'sku', s.sku, 'total', s.total, 'available', s.available,
               'active', (SELECT count(*) FROM reservation r
                           WHERE r.sku = s.sku AND r.status IN ('HELD', 'CONFIRMED')))
             ORDER BY s.sku)
        FROM sku_stock s), '[]'),
    'duplicateActive', (SELECT count(*) FROM (
      SELECT 1 FROM reservation WHERE status IN ('HELD', 'CONFIRMED')
       GROUP BY sku, user_id HAVING count(*) > 1) d),
    'duplicateKey', (SELECT count(*) FROM (
      SELECT 1 FROM reservation GROUP BY request_key HAVING count(*) > 1) d),
    'activeKeys', coalesce((
      SELECT jsonb_agg(request_key) FROM reservation WHERE status IN ('HELD', 'CONFIRMED')), '[]'),
    'endedKeys', coalesce((
      SELECT jsonb_agg(request_key) FROM reservation WHERE status IN ('RELEASED', 'EXPIRED')), '[]'))
$$;
