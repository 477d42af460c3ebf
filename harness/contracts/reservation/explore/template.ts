/**
 * A program of the reservation contract's exhaustive scope, before it is named: one session's operations
 * over numbered keys, users and skus (0, 1, … in the order the program first names them, so two programs
 * that differ only by renaming are one), the stock of each sku, TTLs by class. Naming (names.ts) turns it
 * into a runnable program, once per shape of name.
 */

/** TTLs by class: `short` runs out within a WAIT, `long` never does (ttl.ts gives the numbers). */
export type TtlClass = 'short' | 'long';

export type SymbolicOp =
  | { op: 'reserve'; key: number; user: number; sku: number; ttl: TtlClass }
  | { op: 'confirm' | 'release' | 'status' | 'backdate'; key: number }
  | { op: 'disable' | 'remaining'; sku: number }
  | { op: 'expire' | 'wait' | 'restart' }
  /** CROWD_SIZE short holds on one sku of that stock, each its own key and user, sent one after another. */
  | { op: 'crowd'; sku: number };

export interface Template {
  ops: SymbolicOp[];
  /** Stock of sku i; NO_STOCK: the case does not sell it (no stock line). */
  stock: number[];
}

export const NO_STOCK = -1;

/** More than any batch a design or fixture here expires per statement: one expire must take them all. */
export const CROWD_SIZE = 200;

/** How many keys, users and skus the template names. */
export function namedCounts(t: Template): { keys: number; users: number; skus: number } {
  let keys = 0;
  let users = 0;
  for (const op of t.ops) {
    if ('key' in op) keys = Math.max(keys, op.key + 1);
    if ('user' in op) users = Math.max(users, op.user + 1);
  }
  return { keys, users, skus: t.stock.length };
}

/**
 * How many names of each kind the template could take for one another, for the namings that differ only
 * with two (names.ts): two keys when the first is reserved before the second is named (a lookup of the
 * second could find the first's row); two users when both reserve one sku (the limit is per sku); two
 * skus whenever it names two (a reserve of one could take the other's stock).
 */
export function relatedCounts(t: Template): { keys: number; users: number; skus: number } {
  const named = namedCounts(t);
  const firstReserve = t.ops.findIndex((op) => op.op === 'reserve' && op.key === 0);
  const secondNamed = t.ops.findIndex((op) => 'key' in op && op.key === 1);
  const keys =
    named.keys > 1 && firstReserve >= 0 && firstReserve < secondNamed ? named.keys : Math.min(named.keys, 1);
  const bySku = new Map<number, Set<number>>();
  for (const op of t.ops)
    if (op.op === 'reserve') bySku.set(op.sku, new Set([...(bySku.get(op.sku) ?? []), op.user]));
  const users = Math.max(Math.min(named.users, 1), ...[...bySku.values()].map((u) => u.size));
  return { keys, users, skus: named.skus };
}

/** The template's positions that are WAITs: programs run side by side share them (batch.ts). */
export function waitPositions(t: Template): number[] {
  return t.ops.flatMap((op, i) => (op.op === 'wait' ? [i] : []));
}
