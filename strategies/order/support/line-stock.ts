/**
 * A design's stock as the order path uses it, line by line: taking one line's quantity (and writing the
 * line), and telling a sku that is short from one that does not exist. order_stock's rows and the frozen
 * ledger's accounts are two of them.
 */
import type { ClientBase } from 'pg';
import type { OrderLine, OrderResult } from '../contract.ts';

export interface LineStock {
  /** Takes the line's quantity from its sku and writes the line in one statement; false when it did not fit. */
  take(db: ClientBase, orderId: number, requestKey: string, line: OrderLine): Promise<boolean>;
  /** Whether the sku has stock at all. */
  known(db: ClientBase, sku: string): Promise<boolean>;
}

/** SOLD_OUT naming the sku whose line did not fit, or BAD_REQUEST when the sku has no stock. */
export async function shortLineAnswer(db: ClientBase, stock: LineStock, sku: string): Promise<OrderResult> {
  return (await stock.known(db, sku)) ? { outcome: 'SOLD_OUT', sku } : { outcome: 'BAD_REQUEST' };
}

/**
 * The answer for a line that did not fit, after rolling back to SAVEPOINT `claim` (the order row and every
 * line taken so far).
 */
export async function refuseLine(db: ClientBase, stock: LineStock, sku: string): Promise<OrderResult> {
  await db.query('ROLLBACK TO SAVEPOINT claim');
  return shortLineAnswer(db, stock, sku);
}
