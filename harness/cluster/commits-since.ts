/**
 * Write transactions the primary has committed since a mark: the primary's own word on its transactions,
 * read by the harness for any design (what a design's tables say is not asked). The mark is the primary's
 * snapshot (`pg_current_snapshot()`), taken once a standby's link is cut; every transaction id that mark
 * did not see ended, and that the primary now sees ended and committed (`pg_xact_status`), counts. So
 * every one counted committed after the cut, which that standby cannot have. A commit still waiting for
 * a synchronous standby is running to every snapshot until the standby confirms it: it is not counted.
 * Why not the WAL position: the primary's WAL passes its cut-off standby's with a transaction still open
 * (the WAL writer flushes it) and with a commit waiting for the standby, neither of which any client was
 * told. Autovacuum's own commits (an ANALYZE after the cut) count as well; read-only ones have no id.
 */
import type pg from 'pg';

const MARK_SQL = 'SELECT pg_current_snapshot()::text AS mark';

const COMMITTED_SINCE_SQL = `
  SELECT count(*)::int AS n
  FROM generate_series(pg_snapshot_xmin($1::pg_snapshot)::text::bigint,
                       pg_snapshot_xmax(pg_current_snapshot())::text::bigint - 1) AS x(id)
  WHERE NOT pg_visible_in_snapshot(x.id::text::xid8, $1::pg_snapshot)
    AND pg_visible_in_snapshot(x.id::text::xid8, pg_current_snapshot())
    AND pg_xact_status(x.id::text::xid8) = 'committed'`;

/** Where the primary's transactions stand now: what `committedSince` counts from. */
export type CommitMark = { snapshot: string };

export async function commitMark(primary: pg.ClientBase): Promise<CommitMark> {
  const { rows } = await primary.query<{ mark: string }>(MARK_SQL);
  const snapshot = rows[0]?.mark;
  if (!snapshot) throw new Error('the primary gave no snapshot');
  return { snapshot };
}

export async function committedSince(primary: pg.ClientBase, mark: CommitMark): Promise<number> {
  const { rows } = await primary.query<{ n: number }>(COMMITTED_SINCE_SQL, [mark.snapshot]);
  return rows[0]?.n ?? 0;
}
