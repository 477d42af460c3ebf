/**
 * The order contract's invariants, each a small pure function over what the harness sent, the answers it
 * got and its own final read (order-final-read.ts): every order whole or absent (all-or-nothing, also
 * after a crash), no sku oversold, every quantity accounted (returned exactly once, none lost to an
 * overwrite), one order per key, the design's books adding up, and its audit agreeing with the reads.
 */
import type { OrderCheckName, OrderLine, OrderRequest } from '../../../strategies/order/contract.ts';
import type { OrderFinalRead, OrderKeyReading } from './order-final-read.ts';
import { sameLines, sortedCart } from './order-model.ts';

/** An order the case sent, with what the case recorded as its answer (an outcome, ERROR, ROLLED_BACK, …). */
export interface OrderSent {
  request: OrderRequest;
  outcome: string;
}

export interface OrderProblem {
  check: OrderCheckName;
  message: string;
}

const problem = (check: OrderCheckName, items: readonly string[], what: string): OrderProblem[] =>
  items.length === 0 ? [] : [{ check, message: `${check} ${items.length}: ${what} (${items.join(', ')})` }];

const cartText = (lines: readonly OrderLine[]) =>
  lines.map((l) => `${l.sku}:${l.qty}`).join(',') || 'nothing';

const namesASkuTwice = (lines: readonly OrderLine[]) =>
  new Set(lines.map((l) => l.sku)).size !== lines.length;

/** Per sku, the quantities the lines of the HELD keys hold. */
export function heldBySku(read: OrderFinalRead): Map<string, number> {
  const held = new Map<string, number>();
  for (const { status, lines } of read.keys.values()) {
    if (status !== 'HELD') continue;
    for (const { sku, qty } of lines) held.set(sku, (held.get(sku) ?? 0) + qty);
  }
  return held;
}

/**
 * What is wrong with one key's lines, or undefined: lines under no order, or an order whose lines are not
 * the whole cart of a request sent with its key (the one answered HELD, when one was).
 */
function partial(key: string, reading: OrderKeyReading, sent: readonly OrderSent[]): string | undefined {
  if (reading.status === 'NOT_FOUND')
    return reading.lines.length === 0 ? undefined : `${key}: ${cartText(reading.lines)} under no order`;
  if (namesASkuTwice(reading.lines)) return undefined;
  const ofKey = sent.filter((s) => s.request.requestKey === key);
  const held = ofKey.find((s) => s.outcome === 'HELD');
  const carts = (held ? [held] : ofKey).map((s) => sortedCart(s.request.lines));
  const lines = sortedCart(reading.lines);
  if (carts.some((cart) => sameLines(cart, lines))) return undefined;
  const asked = carts.map(cartText).join(' or ');
  return `${key} ${reading.status}: holds ${cartText(lines)} of ${asked}`;
}

export function allOrNothing(sent: readonly OrderSent[], read: OrderFinalRead): OrderProblem[] {
  const off = [...read.keys].flatMap(([key, reading]) => partial(key, reading, sent) ?? []);
  return problem('allOrNothing', off, 'orders that are not whole');
}

export function oversold(read: OrderFinalRead): OrderProblem[] {
  const held = heldBySku(read);
  const over = [...read.skus].flatMap(([sku, { total }]) => {
    const h = held.get(sku) ?? 0;
    return h > total ? [`${sku}: ${h} held of ${total}`] : [];
  });
  return problem('oversold', over, 'skus whose HELD orders hold more than their stock');
}

/** total − remaining − held per sku: negative when more remains than the HELD orders leave. */
export function drift(read: OrderFinalRead): OrderProblem[] {
  const held = heldBySku(read);
  const off = [...read.skus].flatMap(([sku, { total, remaining }]) => {
    const d = total - remaining - (held.get(sku) ?? 0);
    return d === 0 ? [] : [`${sku}: ${total} − ${remaining} remaining − ${held.get(sku) ?? 0} held = ${d}`];
  });
  return problem('drift', off, 'skus whose stock and HELD orders disagree');
}

export function oneOrderPerKey(read: OrderFinalRead): OrderProblem[] {
  const many = [...read.keys].flatMap(([key, { lines }]) =>
    namesASkuTwice(lines) ? [`${key}: ${cartText(lines)}`] : [],
  );
  return problem('oneOrderPerKey', many, 'keys whose lines name a sku more than once');
}

/** The design's books as its audit reports them (the frozen-stock chapter's reconciliation and ledger). */
export function books(read: OrderFinalRead): OrderProblem[] {
  const kept = read.audit.books;
  if (!kept) return [];
  return [
    ...problem(
      'reconciled',
      kept.reconciled ? [] : ['available + frozen ≠ total'],
      'books that do not add up',
    ),
    ...problem(
      'ledgerReplayDrift',
      kept.ledgerReplayDrift === 0 ? [] : [`${kept.ledgerReplayDrift} units`],
      "the ledger replayed from zero is not today's counters",
    ),
  ];
}

/** Where the design's audit and the harness's reads disagree, each as one phrase. */
function auditDisagreements(sent: readonly OrderSent[], read: OrderFinalRead): string[] {
  const { audit } = read;
  const held = heldBySku(read);
  const off: string[] = [];
  for (const [sku, { total, remaining }] of read.skus) {
    const counts = audit.skus.find((s) => s.sku === sku);
    const ours = `${total}/${remaining}/${held.get(sku) ?? 0}`;
    const theirs = counts ? `${counts.total}/${counts.remaining}/${counts.held}` : 'absent';
    if (ours !== theirs) off.push(`${sku} total/remaining/held: read ${ours}, audit ${theirs}`);
  }
  const heldKeys = [...read.keys].filter(([, r]) => r.status === 'HELD').map(([key]) => key);
  const ours = [...heldKeys].sort().join(' ');
  const theirs = [...audit.heldKeys].sort().join(' ');
  if (ours !== theirs) off.push(`HELD keys: read [${ours}], audit [${theirs}]`);
  const counted = (name: string, mine: number, design: number) =>
    mine === design ? [] : [`${name}: read ${mine}, audit ${design}`];
  const strayLines = [...read.keys.values()].filter((r) => r.status === 'NOT_FOUND');
  return [
    ...off,
    ...counted('partial orders', partialCount(sent, read), audit.partialOrders),
    ...counted('keys with many orders', oneOrderPerKeyCount(read), audit.keysWithManyOrders),
    ...counted(
      'lines without order',
      strayLines.reduce((n, r) => n + r.lines.length, 0),
      audit.linesWithoutOrder,
    ),
  ];
}

const partialCount = (sent: readonly OrderSent[], read: OrderFinalRead) =>
  [...read.keys].filter(([key, r]) => r.status !== 'NOT_FOUND' && partial(key, r, sent) !== undefined).length;

const oneOrderPerKeyCount = (read: OrderFinalRead) =>
  [...read.keys.values()].filter((r) => namesASkuTwice(r.lines)).length;

export function orderAuditMismatch(sent: readonly OrderSent[], read: OrderFinalRead): OrderProblem[] {
  return problem('orderAuditMismatch', auditDisagreements(sent, read), "the design's audit disagrees");
}

/** Every invariant of the order contract over one case's end state. */
export function orderInvariants(sent: readonly OrderSent[], read: OrderFinalRead): OrderProblem[] {
  return [
    ...allOrNothing(sent, read),
    ...oversold(read),
    ...drift(read),
    ...oneOrderPerKey(read),
    ...books(read),
    ...orderAuditMismatch(sent, read),
  ];
}
