/**
 * The in-memory quota design of the flash-sale lab (design C), shared by `memory-quota` (a node rebuilds its
 * share from the ledger when it starts) and the control `memory-quota-config-restart` (it starts from its
 * configured share every time).
 *
 * Each node holds its share of every sku in memory, decrements it, then appends the sale to the ledger (the
 * reservation table: request_key idempotency and one active sale per user are enforced by the database).
 * The database never sees the count, so nothing in it can refuse an oversell: the ledger only records it.
 */
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { NodeIdentity, ReserveRequest, ReserveResult, SessionContext, Strategy } from '../contract.ts';
import { COUNT_DROPPED, onLiveCount } from './count-attempts.ts';
import { dropCount, type NodeCount, nodeCount, settleUnit, takeUnit } from './node-count.ts';
import {
  ACTIVE,
  answerForRecordedKey,
  auditWithStockCounts,
  claimRequestKey,
  createReservationTable,
  reservationStatus,
} from './reservation-table.ts';
import { SQLSTATE, sqlstateOf } from './sqlstate.ts';
import { inTransaction } from './transaction.ts';

const SCHEMA_SQL = readFileSync(new URL('./memory-quota.sql', import.meta.url), 'utf8');

const SQL = {
  loadSkus: 'INSERT INTO quota_sku (sku, total) SELECT * FROM unnest($1::text[], $2::int[])',
  skus: 'SELECT sku, total FROM quota_sku',
  recordShare: 'INSERT INTO node_share (node, sku, share) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
  nodeSales: `SELECT sku, count(*)::int AS sold FROM reservation WHERE node = $1 AND ${ACTIVE} GROUP BY sku`,
  sellingNode: "SELECT set_config('reservebench.node', $1, true)",
  // What the nodes can still sell: each started node's share less its sales, plus the shares of nodes that
  // never started. A node that oversold its share counts 0, not less.
  counts: `SELECT q.sku, q.total,
                  (q.total - coalesce(sum(n.share), 0)
                   + coalesce(sum(greatest(0, n.share - (SELECT count(*) FROM reservation r
                                                         WHERE r.node = n.node AND r.sku = n.sku AND r.${ACTIVE}))), 0)
                  )::int AS available
             FROM quota_sku q LEFT JOIN node_share n USING (sku)
            GROUP BY q.sku, q.total ORDER BY q.sku`,
} as const;

const REMAINING_SQL = `SELECT available FROM (${SQL.counts}) c WHERE sku = $1`;

/** node i's part of `total` over `count` nodes: an even split, the remainder to the first nodes. */
export function shareOf(total: number, node: NodeIdentity): number {
  return Math.floor(total / node.count) + (node.index < total % node.count ? 1 : 0);
}

async function startNode(
  db: ClientBase,
  node: NodeIdentity,
  rebuildFromLedger: boolean,
): Promise<Map<string, number>> {
  const skus = await db.query<{ sku: string; total: number }>(SQL.skus);
  const sold = new Map<string, number>();
  if (rebuildFromLedger) {
    const sales = await db.query<{ sku: string; sold: number }>(SQL.nodeSales, [node.name]);
    for (const row of sales.rows) sold.set(row.sku, row.sold);
  }
  const remaining = new Map<string, number>();
  for (const { sku, total } of skus.rows) {
    const share = shareOf(total, node);
    await db.query(SQL.recordShare, [node.name, sku, share]);
    remaining.set(sku, Math.max(0, share - (sold.get(sku) ?? 0)));
  }
  return remaining;
}

function countOf(ctx: SessionContext, rebuildFromLedger: boolean): Promise<NodeCount> {
  const node = ctx.node;
  if (!node) throw new Error('memory-quota needs the node a session runs on (SessionContext.node)');
  return nodeCount(node.incarnation, () => startNode(ctx.db, node, rebuildFromLedger));
}

/** SQLSTATEs after which a transaction's fate is unknown: the server went away, or the connection did. */
const UNKNOWN_OUTCOME = new Set<string>([
  SQLSTATE.adminShutdown,
  '57P02',
  '57P03',
  SQLSTATE.connectionFailure,
  '08003',
]);

const outcomeUnknown = (error: unknown) => UNKNOWN_OUTCOME.has(sqlstateOf(error) ?? '');

/** One try of a reserve against the node's `count`. */
async function reserveFrom(
  ctx: SessionContext,
  request: ReserveRequest,
  count: NodeCount,
  rebuildFromLedger: boolean,
): Promise<ReserveResult | typeof COUNT_DROPPED> {
  let taken = false;
  let putBack = true;
  try {
    const answer = await inTransaction(ctx.db, async (): Promise<ReserveResult | typeof COUNT_DROPPED> => {
      const recorded = await answerForRecordedKey(ctx.db, request);
      if (recorded) return recorded;
      await ctx.pause('after-read');
      const take = takeUnit(count, request.sku);
      if (take === 'dropped') return COUNT_DROPPED;
      if (take === 'unknown-sku') return { outcome: 'BAD_REQUEST' };
      if (take === 'none') return { outcome: 'SOLD_OUT' };
      taken = true;
      await ctx.pause('after-memory-before-ledger');
      await ctx.db.query(SQL.sellingNode, [ctx.node?.name]);
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    });
    if (answer !== COUNT_DROPPED && answer.outcome === 'HELD') putBack = false;
    return answer;
  } catch (error: unknown) {
    // The connection went away under the transaction (a crash, a failover, a backend ended): its
    // COMMIT may have landed, so the unit may be sold. Putting it back could sell it twice; a node that
    // rebuilds from the ledger drops its count and rebuilds it, at its next request, from the ledger of
    // whichever server then takes writes — once its other sales in flight have settled (node-count.ts).
    if (rebuildFromLedger && outcomeUnknown(error)) {
      dropCount(count);
      putBack = false;
    }
    throw error;
  } finally {
    // Anything but a committed sale puts the unit back in memory (replay, user limit, rollback, error).
    if (taken) settleUnit(count, request.sku, putBack);
  }
}

export function memoryQuotaDesign(options: {
  rebuildFromLedger: boolean;
}): Pick<Strategy, 'pausePoints' | 'setup' | 'reserve' | 'status' | 'remaining' | 'audit'> {
  return {
    pausePoints: { reserve: ['after-read', 'after-memory-before-ledger', 'before-commit'] },

    async setup(db, stock) {
      await createReservationTable(db, { oneActivePerUser: true });
      await db.query(SCHEMA_SQL);
      await db.query(SQL.loadSkus, [stock.map((s) => s.sku), stock.map((s) => s.total)]);
    },

    reserve: (ctx, request) =>
      // Another session's outcome may go unknown while this one reads: it takes from the rebuilt count.
      onLiveCount(
        ctx,
        () => countOf(ctx, options.rebuildFromLedger),
        (attemptCtx, count) => reserveFrom(attemptCtx, request, count, options.rebuildFromLedger),
      ),

    status: reservationStatus,

    async remaining(db, sku) {
      const { rows } = await db.query<{ available: number }>(REMAINING_SQL, [sku]);
      return rows[0]?.available ?? 0;
    },

    audit: (db) => auditWithStockCounts(db, SQL.counts),
  };
}
