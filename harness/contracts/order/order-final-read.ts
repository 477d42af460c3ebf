/**
 * The harness's own reading of an order case's end state, through the design's reads: `status` and
 * `lines` of every key the case sent, `remaining` of every sku it stocked, and the design's `audit()` to
 * compare them with — all in one REPEATABLE READ snapshot, so the reads agree with each other.
 */
import type { ClientBase } from 'pg';
import type { StockLine } from '../../../strategies/contract.ts';
import type { OrderAudit, OrderDesign, OrderLine } from '../../../strategies/order/contract.ts';
import type { OrderKeyStatus } from './order-history.ts';

export interface OrderKeyReading {
  status: OrderKeyStatus;
  lines: readonly OrderLine[];
}

export interface OrderFinalRead {
  keys: ReadonlyMap<string, OrderKeyReading>;
  /** Per sku: the stock the case loaded, and what the design says remains. */
  skus: ReadonlyMap<string, { total: number; remaining: number }>;
  audit: OrderAudit;
}

/** Reads on `db` (the harness's own connection, on the case's schema). */
export async function readOrdersBack(
  db: ClientBase,
  design: Pick<OrderDesign, 'status' | 'lines' | 'remaining' | 'audit'>,
  keys: Iterable<string>,
  stock: readonly StockLine[],
): Promise<OrderFinalRead> {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const read = new Map<string, OrderKeyReading>();
    for (const key of new Set(keys))
      read.set(key, { status: await design.status(db, key), lines: await design.lines(db, key) });
    const skus = new Map<string, { total: number; remaining: number }>();
    for (const { sku, total } of stock) skus.set(sku, { total, remaining: await design.remaining(db, sku) });
    const audit = await design.audit(db);
    return { keys: read, skus, audit };
  } finally {
    await db.query('COMMIT').catch(() => undefined);
  }
}
