-- conditional-update — hot-row's design written as plain SQL: one stock row per sku, decremented by a
-- conditional UPDATE, every operation one function (docs/contract.md, "A design in plain SQL").
--
-- How it stays correct: `available > 0` is evaluated under the row lock: in READ COMMITTED an UPDATE that
-- meets a row a concurrent transaction changed waits for it, then re-evaluates its WHERE on the newest
-- version. request_key is a unique arbiter (ON CONFLICT DO NOTHING → replay); a partial unique index keeps
-- one active hold per user and sku, and its 23505 is looked up by key before it is called USER_LIMIT (a
-- concurrent replay of the key can reach the user index first). No unit left: the claim, the only row the
-- call wrote, is deleted again, so a reservation row exists only with its unit taken (no foreign key is
-- needed to refuse an unknown sku: the decrement finds no stock row for it).
--
-- When it breaks: as hot-row — a decrement without the condition, REPEATABLE READ or above (the wait
-- becomes a 40001 and nothing here retries). Every reservation queues on one row lock until it commits.
--
-- Lifecycle: confirm, release and expire move rows only WHERE status = 'HELD' and return stock in the same
-- statement, counted from the rows it moved, so replays and concurrent jobs return nothing twice.
--
-- Pause points: reserve after-read once the key is claimed, before the stock row is touched, and
-- before-commit after the decrement; expire before-commit after its statement.
--
-- @id sql-conditional-update
-- @title Conditional UPDATE, written in SQL: hot-row as one file of functions
-- @guarantee `available > 0` re-evaluated under the row lock; unique key + partial unique index
-- @expect hold
-- @pausePoints.reserve after-read, before-commit
-- @pausePoints.expire before-commit

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
BEGIN
  BEGIN
    INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
    VALUES (reserve.request_key, reserve.user_id, reserve.sku, 'HELD',
            now() + make_interval(secs => reserve.ttl_ms / 1000.0))
    ON CONFLICT (request_key) DO NOTHING;
  EXCEPTION WHEN unique_violation THEN
    -- The user's active hold, or a concurrent replay of this key that reached the user index first.
    RETURN QUERY SELECT * FROM recorded_answer(reserve.request_key, reserve.user_id, reserve.sku);
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'USER_LIMIT', NULL::text;
    END IF;
    RETURN;
  END;
  IF NOT FOUND THEN
    -- The key is taken (ON CONFLICT waited for its first insert to commit): nothing was written.
    RETURN QUERY SELECT * FROM recorded_answer(reserve.request_key, reserve.user_id, reserve.sku);
    RETURN;
  END IF;
  PERFORM reservebench_pause('after-read');
  UPDATE sku_stock s SET available = s.available - 1 WHERE s.sku = reserve.sku AND s.available > 0;
  IF NOT FOUND THEN
    DELETE FROM reservation r WHERE r.request_key = reserve.request_key;
    RETURN QUERY SELECT CASE WHEN EXISTS (SELECT 1 FROM sku_stock s WHERE s.sku = reserve.sku)
                             THEN 'SOLD_OUT' ELSE 'BAD_REQUEST' END, NULL::text;
    RETURN;
  END IF;
  PERFORM reservebench_pause('before-commit');
  RETURN QUERY SELECT 'HELD', 'HELD';
END
$$;

CREATE FUNCTION confirm(key text) RETURNS boolean LANGUAGE sql AS $$
  WITH moved AS (
    UPDATE reservation SET status = 'CONFIRMED', updated_at = now()
     WHERE request_key = key AND status = 'HELD'
    RETURNING 1)
  SELECT count(*) = 1 FROM moved
$$;

CREATE FUNCTION release(key text) RETURNS boolean LANGUAGE sql AS $$
  WITH moved AS (
    UPDATE reservation SET status = 'RELEASED', updated_at = now()
     WHERE request_key = key AND status = 'HELD'
    RETURNING sku),
  returned AS (
    UPDATE sku_stock s SET available = s.available + 1 FROM moved WHERE s.sku = moved.sku RETURNING 1)
  SELECT count(*) > 0 FROM returned
$$;

CREATE FUNCTION expire() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  units int;
BEGIN
  WITH moved AS (
    UPDATE reservation SET status = 'EXPIRED', updated_at = now()
     WHERE status = 'HELD' AND expires_at < now()
    RETURNING sku),
  per AS (SELECT sku, count(*)::int AS n FROM moved GROUP BY sku),
  returned AS (
    UPDATE sku_stock s SET available = s.available + per.n FROM per WHERE s.sku = per.sku RETURNING per.n)
  SELECT coalesce(sum(n), 0)::int INTO units FROM returned;
  PERFORM reservebench_pause('before-commit');
  RETURN units;
END
$$;

CREATE FUNCTION status(key text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT status FROM reservation WHERE request_key = key
$$;

-- The counter itself, never a count of reservations, or drift could not show a disagreement.
CREATE FUNCTION remaining(sku text) RETURNS int LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT available FROM sku_stock s WHERE s.sku = remaining.sku), 0)
$$;

CREATE FUNCTION backdate(keys text[]) RETURNS void LANGUAGE sql AS $$
  UPDATE reservation SET expires_at = now() - interval '1 second' WHERE request_key = ANY (keys)
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
