/**
 * bucketed — the frozen-stock chapter's stock buckets: a sku's stock split over BUCKETS rows; a reserve takes
 * a unit from the bucket its user hashes to, and falls back to the other buckets before it answers SOLD_OUT.
 * `bucketedDesign({ buckets, fallback })` builds a variant with another N; `--param bucketed.buckets=16` runs
 * one.
 *
 * How it stays correct: each bucket is a hot-row counter of its share (`available > 0` re-evaluated under
 * the bucket row's lock), and the shares add up to the stock (the first `total % N` rows get one unit
 * more), so no bucket, and no sku, sells more than it has. The key and one active hold per user are
 * claimed first (claimRequestKey). The fallback walks every bucket, from the home one round, and waits on
 * a locked bucket instead of skipping it, so a unit held by a transaction that rolls back is found. Each
 * failed try rolls back to a savepoint: an UPDATE that waited and then found the bucket empty keeps the
 * row locked, and two sweeps from different home buckets would each hold the one the other tries (40P01).
 *
 * When it breaks: without the fallback (the control bucketed-no-fallback) a user whose bucket is empty is
 * told SOLD_OUT while other buckets still have units. With it the sweep is not atomic: a unit given back
 * into a bucket the sweep has passed is missed, a SOLD_OUT while a unit is free in that instant (no
 * scenario's interleaving produces it). Near the end of the stock a SOLD_OUT visits every bucket: the
 * chapter's rebalancing cost (near the end of the stock the buckets must be balanced against each other),
 * paid in tries, never as an oversell.
 *
 * Lifecycle: the bucket a unit came from is recorded with the take (bucket_take); release and expire give
 * it back there, moving rows only `WHERE status = 'HELD'`, stock back in the same statement. `remaining`
 * is the sum over the buckets.
 *
 * Pause points: reserve `after-read` once the key is claimed (no bucket locked yet), `before-commit` with
 * the unit taken; expire `before-commit`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { ReserveRequest, ReserveResult, Strategy } from './contract.ts';
import {
  auditWithStockCounts,
  claimRequestKey,
  createReservationTable,
  lifecycleFromStatements,
} from './support/reservation-table.ts';
import { inTransaction } from './support/transaction.ts';

/** Bucket rows per sku. */
export const BUCKETS = 4;

const SCHEMA_SQL = readFileSync(new URL('./bucketed.sql', import.meta.url), 'utf8');

const SQL = {
  load: `INSERT INTO stock_bucket (sku, bucket_no, total, available)
         SELECT sku, b, share, share
           FROM (SELECT s.sku, b, s.total / $3 + CASE WHEN b < s.total % $3 THEN 1 ELSE 0 END AS share
                   FROM unnest($1::text[], $2::int[]) AS s(sku, total),
                        generate_series(0, $3::int - 1) AS b) split`,
  take: `WITH taken AS (
           UPDATE stock_bucket SET available = available - 1
            WHERE sku = $1 AND bucket_no = $2 AND available > 0
           RETURNING sku, bucket_no)
         INSERT INTO bucket_take (request_key, sku, bucket_no) SELECT $3, sku, bucket_no FROM taken`,
  known: 'SELECT 1 FROM stock_bucket WHERE sku = $1 LIMIT 1',
  remaining: 'SELECT coalesce(sum(available), 0)::int AS available FROM stock_bucket WHERE sku = $1',
  counts: `SELECT sku, sum(total)::int AS total, sum(available)::int AS available
             FROM stock_bucket GROUP BY sku ORDER BY sku`,
  release: `WITH moved AS (
              UPDATE reservation SET status = 'RELEASED', updated_at = now()
               WHERE request_key = $1 AND status = 'HELD'
              RETURNING request_key)
            UPDATE stock_bucket b SET available = b.available + 1
              FROM moved JOIN bucket_take t USING (request_key)
             WHERE b.sku = t.sku AND b.bucket_no = t.bucket_no`,
  expire: `WITH moved AS (
             UPDATE reservation SET status = 'EXPIRED', updated_at = now()
              WHERE status = 'HELD' AND expires_at < now()
             RETURNING request_key),
           per AS (
             SELECT t.sku, t.bucket_no, count(*)::int AS n
               FROM moved JOIN bucket_take t USING (request_key) GROUP BY t.sku, t.bucket_no),
           returned AS (
             UPDATE stock_bucket b SET available = b.available + per.n
               FROM per WHERE b.sku = per.sku AND b.bucket_no = per.bucket_no
             RETURNING per.n)
           SELECT coalesce(sum(n), 0)::int AS units FROM returned`,
} as const;

/** The user's home bucket: a well-mixed hash, so sequential user ids do not fill buckets in turn. */
export function homeBucket(user: string, buckets: number): number {
  return createHash('sha256').update(user).digest().readUInt32BE(0) % buckets;
}

/**
 * Inside the reserve's transaction: tries `buckets` in order and records the take; false when every one
 * was empty. Each failed try is rolled back to SAVEPOINT `take`, which releases the row lock it may have
 * kept (see "How it stays correct").
 */
async function takeUnit(
  db: ClientBase,
  request: ReserveRequest,
  buckets: readonly number[],
): Promise<boolean> {
  await db.query('SAVEPOINT take');
  for (const bucket of buckets) {
    const taken = await db.query(SQL.take, [request.sku, bucket, request.requestKey]);
    if (taken.rowCount === 1) return true;
    await db.query('ROLLBACK TO SAVEPOINT take');
  }
  return false;
}

/** Everything but the name: `buckets` rows per sku; `fallback`: an empty home bucket tries the others. */
export function bucketedDesign(options: {
  buckets: number;
  fallback: boolean;
}): Omit<Strategy, 'id' | 'title' | 'guarantee' | 'expect'> {
  const { buckets, fallback } = options;
  const order = (user: string): number[] => {
    const home = homeBucket(user, buckets);
    return fallback ? Array.from({ length: buckets }, (_, i) => (home + i) % buckets) : [home];
  };
  return {
    pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

    setup: async (db, stock) => {
      await createReservationTable(db, { oneActivePerUser: true });
      await db.query(SCHEMA_SQL);
      await db.query(SQL.load, [stock.map((s) => s.sku), stock.map((s) => s.total), buckets]);
    },

    reserve: (ctx, request) =>
      inTransaction(ctx.db, async (): Promise<ReserveResult> => {
        const claim = await claimRequestKey(ctx.db, request);
        if (claim !== 'claimed') return claim;
        await ctx.pause('after-read');
        if (!(await takeUnit(ctx.db, request, order(request.user)))) {
          await ctx.db.query('ROLLBACK TO SAVEPOINT claim');
          const known = await ctx.db.query(SQL.known, [request.sku]);
          return { outcome: known.rowCount ? 'SOLD_OUT' : 'BAD_REQUEST' };
        }
        await ctx.pause('before-commit');
        return { outcome: 'HELD', status: 'HELD' };
      }),

    ...lifecycleFromStatements({ release: SQL.release, expire: SQL.expire }),
    remaining: async (db, sku) =>
      (await db.query<{ available: number }>(SQL.remaining, [sku])).rows[0]?.available ?? 0,
    audit: (db) => auditWithStockCounts(db, SQL.counts),
  };
}

const bucketed: Strategy = {
  id: 'bucketed',
  title: 'Bucketed stock: N bucket rows per sku, hashed by user, fallback to the other buckets',
  guarantee:
    '`available > 0` re-evaluated under each bucket row lock; shares add up to the stock; an empty home bucket falls back to every other bucket (waiting on locked ones) before SOLD_OUT',
  expect: 'hold',
  ...bucketedDesign({ buckets: BUCKETS, fallback: true }),
  parameters: {
    buckets: { describe: 'bucket rows per sku', default: BUCKETS, min: 1, max: 256 },
  },
  configure: (values) => ({
    ...bucketed,
    ...bucketedDesign({ buckets: values.buckets ?? BUCKETS, fallback: true }),
  }),
};

export default bucketed;
