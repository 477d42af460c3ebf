/**
 * A cart as every order design reads it: whether the contract refuses the request (BAD_REQUEST before any
 * statement), the lines in sku order (the order a design that must never deadlock takes them in), and the
 * canonical text a replay is compared by.
 */
import type { OrderLine, OrderRequest } from '../contract.ts';

/** Keys, users and skus: what the HTTP API of the reservation contract accepts too. */
const FIELD = /^[A-Za-z0-9._:@-]{1,128}$/;
export const MAX_LINES = 32;
export const MAX_QTY = 1_000_000;
const MAX_TTL_MS = 24 * 3600 * 1000;

const wholeBetween = (n: number, min: number, max: number) => Number.isSafeInteger(n) && n >= min && n <= max;

/** The request the contract refuses: a malformed key, user, sku, quantity or TTL, no lines, a sku twice. */
export function isBadOrder(request: OrderRequest): boolean {
  const { requestKey, user, lines, ttlMs } = request;
  if (!FIELD.test(requestKey) || !FIELD.test(user) || !wholeBetween(ttlMs, 1, MAX_TTL_MS)) return true;
  if (lines.length === 0 || lines.length > MAX_LINES) return true;
  if (lines.some((l) => !FIELD.test(l.sku) || !wholeBetween(l.qty, 1, MAX_QTY))) return true;
  return new Set(lines.map((l) => l.sku)).size !== lines.length;
}

/** The lines sorted by sku (code-point order, as PostgreSQL's "C" collation and `ORDER BY sku COLLATE "C"`). */
export function bySku(lines: readonly OrderLine[]): OrderLine[] {
  return [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
}

/** The cart as the order row records it: sorted by sku, `sku:qty` joined by commas. */
export function cartText(lines: readonly OrderLine[]): string {
  return bySku(lines)
    .map((l) => `${l.sku}:${l.qty}`)
    .join(',');
}
