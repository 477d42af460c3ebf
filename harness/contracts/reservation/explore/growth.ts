/**
 * How a reservation program of the exhaustive scope grows by one operation (scope.ts): every operation the
 * design implements, over the keys, users and skus the program has named and one new one of each kind
 * (so the next key is always the first unnamed one: programs that differ by renaming are grown once), a
 * new sku with each stock of 0–2, both TTL classes. What can make no difference is left out, each rule
 * with its reason: a short TTL that no WAIT or expire follows is a long one; a WAIT needs a short hold
 * before it and an operation after it; a restart of a node that has served nothing, or has just
 * restarted, restarts nothing; a backdate needs a hold; a program that ends in a read is the program
 * before it, whose final read reads every key and sku. A WAIT (the database clock passes a short TTL) is
 * not an operation of the contract: it may come before any operation after a short hold, and does not
 * count in a program's length.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { ScopeGrowth } from '../../../explore/scope.ts';
import { NO_STOCK, namedCounts, type SymbolicOp, type Template, type TtlClass } from './template.ts';

/**
 * The scope's names: three keys, two users, two skus of stock 0–2 or none at all (a sku the case does not
 * sell: its reserves are BAD_REQUEST).
 */
export const SCOPE_NAMES = { keys: 3, users: 2, skus: 2, stocks: [0, 1, 2, NO_STOCK] } as const;
const TTLS: readonly TtlClass[] = ['short', 'long'];

const upTo = (named: number, most: number) => Array.from({ length: Math.min(named + 1, most) }, (_, i) => i);

/**
 * The skus an operation may name: those named, and a new one of each stock. Only a reserve names a sku
 * the case does not sell (the contract fixes its answer, BAD_REQUEST; it says nothing of the others').
 */
function skuChoices(
  t: Template,
  op: 'reserve' | 'disable' | 'remaining',
): { sku: number; stock: number[] }[] {
  const sold = (stock: number) => op === 'reserve' || stock !== NO_STOCK;
  const named = t.stock.flatMap((stock, sku) => (sold(stock) ? [{ sku, stock: t.stock }] : []));
  if (t.stock.length >= SCOPE_NAMES.skus) return named;
  const fresh = SCOPE_NAMES.stocks.filter(sold).map((s) => ({ sku: t.stock.length, stock: [...t.stock, s] }));
  return [...named, ...fresh];
}

function reserves(t: Template): Template[] {
  const { keys, users } = namedCounts(t);
  return upTo(keys, SCOPE_NAMES.keys).flatMap((key) =>
    upTo(users, SCOPE_NAMES.users).flatMap((user) =>
      skuChoices(t, 'reserve').flatMap(({ sku, stock }) =>
        TTLS.map((ttl) => ({ ops: [...t.ops, { op: 'reserve', key, user, sku, ttl } as const], stock })),
      ),
    ),
  );
}

function onKeys(t: Template, op: 'confirm' | 'release' | 'status'): Template[] {
  return upTo(namedCounts(t).keys, SCOPE_NAMES.keys).map((key) => ({
    ops: [...t.ops, { op, key }],
    stock: t.stock,
  }));
}

function onSkus(t: Template, op: 'disable' | 'remaining'): Template[] {
  return skuChoices(t, op).map(({ sku, stock }) => ({ ops: [...t.ops, { op, sku }], stock }));
}

const appended = (t: Template, op: SymbolicOp): Template => ({ ops: [...t.ops, op], stock: t.stock });

/** The final read reads every key and sku right after a program: a program ending in a read repeats it. */
const READS = new Set(['status', 'remaining']);

const heldShort = (t: Template) => t.ops.some((op) => op.op === 'reserve' && op.ttl === 'short');

/** The operations that need no design member: reserve, the reads, a restart. */
function alwaysThere(t: Template): Template[] {
  const last = t.ops.at(-1)?.op;
  return [
    ...reserves(t),
    ...onKeys(t, 'status'),
    ...onSkus(t, 'remaining'),
    ...(last !== undefined && last !== 'restart' ? [appended(t, { op: 'restart' })] : []),
  ];
}

/** Each next operation, and the same after a WAIT where a short hold could run out before it. */
function withWaits(t: Template, grown: Template[]): Template[] {
  if (!heldShort(t)) return grown;
  const at = t.ops.length;
  const waited = (g: Template): Template => ({
    ops: [...g.ops.slice(0, at), { op: 'wait' }, ...g.ops.slice(at)],
    stock: g.stock,
  });
  return grown.flatMap((g) => [g, waited(g)]);
}

/** The design's optional operations it implements. */
function optional(t: Template, strategy: Strategy): Template[] {
  const reservedKeys = [...new Set(t.ops.flatMap((op) => (op.op === 'reserve' ? [op.key] : [])))];
  return [
    ...(strategy.confirm ? onKeys(t, 'confirm') : []),
    ...(strategy.release ? onKeys(t, 'release') : []),
    ...(strategy.expire ? [appended(t, { op: 'expire' })] : []),
    ...(strategy.disable ? onSkus(t, 'disable') : []),
    ...(strategy.backdate ? reservedKeys.map((key) => appended(t, { op: 'backdate', key })) : []),
  ];
}

/**
 * Whether `op` acts on what `what` names: its key or its sku (a user's limit is per sku), or everything
 * (an expire, a restart).
 */
function touches(op: SymbolicOp, what: SymbolicOp): boolean {
  if (op.op === 'expire' || op.op === 'restart' || op.op === 'crowd') return true;
  if ('key' in what && 'key' in op && op.key === what.key) return true;
  return 'sku' in what && 'sku' in op && op.sku === what.sku;
}

/**
 * What follows a WAIT acts on a short hold made before it: time passing changes nothing the contract
 * answers about another key, sku or user.
 */
function waitsMatter(t: Template): boolean {
  return t.ops.every((op, i) => {
    if (op.op !== 'wait') return true;
    const next = t.ops[i + 1];
    const short = t.ops.slice(0, i).filter((o) => o.op === 'reserve' && o.ttl === 'short');
    return next !== undefined && short.some((hold) => touches(next, hold));
  });
}

/**
 * A read is followed by an operation that is not a read: a read at the end repeats the final read, which
 * reads every key and sku right after the program.
 */
function readsMatter(t: Template): boolean {
  const last = t.ops.findLastIndex((op) => !READS.has(op.op) && op.op !== 'wait');
  return t.ops.every((op, i) => !READS.has(op.op) || i < last);
}

/**
 * A sku of 2 units is reserved, and another reserve follows (of it, or — by a design that takes one sku
 * for another — sold from it): otherwise its second unit is only one more left, as with 1 unit.
 */
function stockMatters(t: Template): boolean {
  return t.stock.every((stock, sku) => {
    if (stock !== 2) return true;
    const first = t.ops.findIndex((op) => op.op === 'reserve' && op.sku === sku);
    return first >= 0 && t.ops.slice(first + 1).some((op) => op.op === 'reserve');
  });
}

/** Every short hold is followed by what lets its TTL show: a WAIT or an expire. */
function shortHoldsShow(t: Template): boolean {
  return t.ops.every(
    (op, i) =>
      op.op !== 'reserve' ||
      op.ttl === 'long' ||
      t.ops.slice(i + 1).some((later) => later.op === 'wait' || later.op === 'expire'),
  );
}

export function reservationGrowth(strategy: Strategy): ScopeGrowth<Template> {
  return {
    empty: { ops: [], stock: [] },
    grow: (t) => withWaits(t, [...alwaysThere(t), ...optional(t, strategy)]),
    runnable: (t) => shortHoldsShow(t) && readsMatter(t) && stockMatters(t) && waitsMatter(t),
  };
}
