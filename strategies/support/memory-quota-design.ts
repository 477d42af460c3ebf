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
import type { NodeIdentity, ReserveResult, SessionContext, Strategy } from '../contract.ts';
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

/** The node's memory, per incarnation: a restart (new incarnation) starts from nothing. */
const memory = new Map<string, Promise<Map<string, number>>>();

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

function nodeMemory(ctx: SessionContext, rebuildFromLedger: boolean): Promise<Map<string, number>> {
  const node = ctx.node;
  if (!node) throw new Error('memory-quota needs the node a session runs on (SessionContext.node)');
  let started = memory.get(node.incarnation);
  if (!started) {
    // A new incarnation is a restart: whatever an earlier run of this node kept in memory is dropped.
    const sameNode = node.incarnation.slice(0, node.incarnation.lastIndexOf('#') + 1);
    for (const key of memory.keys()) if (sameNode && key.startsWith(sameNode)) memory.delete(key);
    started = startNode(ctx.db, node, rebuildFromLedger);
    memory.set(node.incarnation, started);
    // A start that failed (its connection cut mid-way) must not leave the node failed for good: the next
    // request starts it again.
    started.catch(() => memory.delete(node.incarnation));
  }
  return started;
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

/** Drops the node's count, if it is still this one, so that its next request rebuilds it from the ledger. */
function forget(ctx: SessionContext, count: Map<string, number>): void {
  const incarnation = ctx.node?.incarnation;
  if (incarnation === undefined) return;
  // A start that failed is already dropped (nodeMemory's catch); its rejection must not surface here again.
  void memory.get(incarnation)?.then(
    (current) => {
      if (current === count) memory.delete(incarnation);
    },
    () => undefined,
  );
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

    async reserve(ctx, request) {
      const remaining = await nodeMemory(ctx, options.rebuildFromLedger);
      let taken = false;
      try {
        const answer = await inTransaction(ctx.db, async (): Promise<ReserveResult> => {
          const recorded = await answerForRecordedKey(ctx.db, request);
          if (recorded) return recorded;
          await ctx.pause('after-read');
          const left = remaining.get(request.sku);
          if (left === undefined) return { outcome: 'BAD_REQUEST' };
          if (left <= 0) return { outcome: 'SOLD_OUT' };
          remaining.set(request.sku, left - 1);
          taken = true;
          await ctx.pause('after-memory-before-ledger');
          await ctx.db.query(SQL.sellingNode, [ctx.node?.name]);
          const claim = await claimRequestKey(ctx.db, request);
          if (claim !== 'claimed') return claim;
          await ctx.pause('before-commit');
          return { outcome: 'HELD', status: 'HELD' };
        });
        if (answer.outcome === 'HELD') taken = false;
        return answer;
      } catch (error: unknown) {
        // The connection went away under the transaction (a crash, a failover, a backend ended): its
        // COMMIT may have landed, so the unit may be sold. Putting it back could sell it twice; a node that
        // rebuilds from the ledger forgets its count and rebuilds it, at its next request, from the ledger
        // of whichever server then takes writes.
        if (options.rebuildFromLedger && outcomeUnknown(error)) {
          forget(ctx, remaining);
          taken = false;
        }
        throw error;
      } finally {
        // Anything but a committed sale puts the unit back in memory (replay, user limit, rollback, error).
        if (taken) remaining.set(request.sku, (remaining.get(request.sku) ?? 0) + 1);
      }
    },

    status: reservationStatus,

    async remaining(db, sku) {
      const { rows } = await db.query<{ available: number }>(REMAINING_SQL, [sku]);
      return rows[0]?.available ?? 0;
    },

    audit: (db) => auditWithStockCounts(db, SQL.counts),
  };
}
