/**
 * The sequential model of the order contract (docs/contract.md, "Orders"): given the state and one call,
 * every answer the contract allows, what each one changes, and the rule (order-rules.ts) that allows it.
 * Written to be read against the rules table line by line; the checker (harness/history/linearizability.ts)
 * supplies the order, so which of two racing carts wins is not the model's business.
 */
import type { OrderLine, OrderRequest } from '../../../strategies/order/contract.ts';
import type { ModelResult, SearchModel } from '../../history/search-model.ts';
import type { OrderAnswer, OrderCall, TimedOrderCall } from './order-history.ts';
import type { OrderRule } from './order-rules.ts';
import { type OrderChange, type OrderRecord, OrderState } from './order-state.ts';

export interface OrderModelResult extends ModelResult<OrderAnswer, OrderChange> {
  rule: OrderRule;
}

export interface OrderModelOptions {
  /** Leaves GAVE_UP out (it is always allowed): for explaining what the model answers instead. */
  withoutGaveUp?: boolean;
}

// The contract's limits, written here rather than taken from the designs' support code (cart.ts), so that
// the model does not follow a design's change of them.
const FIELD = /^[A-Za-z0-9._:@-]{1,128}$/;
const MAX_LINES = 32;
const MAX_QTY = 1_000_000;
const MAX_TTL_MS = 86_400_000;

/** Most expiry splits tried for one expire call whose clock leaves some orders' expiry undecided. */
const MAX_EXPIRY_SPLITS = 64;

const whole = (n: number, min: number, max: number) => Number.isSafeInteger(n) && n >= min && n <= max;

/** A cart the contract refuses whatever else holds: no lines, too many, a sku twice, a bad quantity. */
function badCart(lines: readonly OrderLine[]): boolean {
  return (
    lines.length === 0 ||
    lines.length > MAX_LINES ||
    lines.some((l) => !whole(l.qty, 1, MAX_QTY)) ||
    new Set(lines.map((l) => l.sku)).size !== lines.length
  );
}

/** A field the contract refuses, which a design may also take and go on with. */
function badField({ requestKey, user, lines, ttlMs }: OrderRequest): boolean {
  return (
    !FIELD.test(requestKey) ||
    !FIELD.test(user) ||
    !whole(ttlMs, 1, MAX_TTL_MS) ||
    lines.some((l) => !FIELD.test(l.sku))
  );
}

/** A cart's lines sorted by sku, in code-point order. */
export function sortedCart(lines: readonly OrderLine[]): OrderLine[] {
  return [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
}

export const sameLines = (a: readonly OrderLine[], b: readonly OrderLine[]) =>
  a.length === b.length && a.every((l, i) => l.sku === b[i]?.sku && l.qty === b[i]?.qty);

const answered = (rule: OrderRule, answer: OrderAnswer, changes: OrderChange[] = []): OrderModelResult => ({
  rule,
  answer,
  changes,
});

/** The answers of an order whose key is new, once the request itself is one the contract takes. */
function newKeyResults(state: OrderState, t: TimedOrderCall, request: OrderRequest): OrderModelResult[] {
  const cart = sortedCart(request.lines);
  if (cart.some((l) => !state.totals.has(l.sku)))
    return [answered('order.no-stock', { outcome: 'BAD_REQUEST' })];
  const short = cart.filter((l) => l.qty > state.free(l.sku));
  if (short.length > 0)
    return short.map((l) => answered('order.sold-out', { outcome: 'SOLD_OUT', sku: l.sku }));
  const { from, to } = t.db;
  const record: OrderRecord = {
    user: request.user,
    cart,
    status: 'HELD',
    expires: { from: from + request.ttlMs, to: to + request.ttlMs },
  };
  return [answered('order.held', { outcome: 'HELD', status: 'HELD' }, [{ key: request.requestKey, record }])];
}

function orderResults(state: OrderState, t: TimedOrderCall, request: OrderRequest): OrderModelResult[] {
  if (badCart(request.lines)) return [answered('order.refused', { outcome: 'BAD_REQUEST' })];
  const refused = badField(request) ? [answered('order.refused-field', { outcome: 'BAD_REQUEST' })] : [];
  const recorded = state.record(request.requestKey);
  if (!recorded) return [...refused, ...newKeyResults(state, t, request)];
  const same = recorded.user === request.user && sameLines(recorded.cart, sortedCart(request.lines));
  const answer: OrderAnswer = same
    ? { outcome: 'REPLAY', status: recorded.status }
    : { outcome: 'KEY_REUSED' };
  return [...refused, answered('order.recorded', answer)];
}

function releaseResults(state: OrderState, key: string): OrderModelResult[] {
  const record = state.record(key);
  if (record?.status !== 'HELD') return [answered('release', { moved: false })];
  return [answered('release', { moved: true }, [{ key, record: { ...record, status: 'RELEASED' } }])];
}

/** Every way to pick `k` of `items`, at most `limit` of them, each keeping the items' order. */
function choose<T>(items: readonly T[], k: number, limit: number): T[][] {
  if (k === 0) return [[]];
  const picks: T[][] = [];
  for (let first = 0; first + k <= items.length && picks.length < limit; first++) {
    const head = items[first] as T;
    for (const rest of choose(items.slice(first + 1), k - 1, limit - picks.length))
      picks.push([head, ...rest]);
  }
  return picks;
}

/**
 * Expiry on the database clock: an order's expiry is before the call's clock for certain, after it for
 * certain, or — when the bounds overlap — either; every split of the undecided ones is a possible answer.
 * `wanted`: only the splits giving the recorded answer, to keep the search small.
 */
function expireResults(state: OrderState, t: TimedOrderCall, wanted: OrderAnswer | undefined) {
  const sure: [string, OrderRecord][] = [];
  const undecided: [string, OrderRecord][] = [];
  for (const [key, record] of state.held()) {
    if (record.expires === 'past' || record.expires.to < t.db.from) sure.push([key, record]);
    else if (record.expires.from < t.db.to) undecided.push([key, record]);
  }
  const target = wanted && 'orders' in wanted ? wanted : undefined;
  const sizes = target
    ? [target.orders - sure.length].filter((m) => m >= 0 && m <= undecided.length)
    : Array.from({ length: undecided.length + 1 }, (_, m) => m);
  const results: OrderModelResult[] = [];
  for (const m of sizes) {
    for (const extra of choose(undecided, m, MAX_EXPIRY_SPLITS - results.length)) {
      const ended = [...sure, ...extra];
      const units = ended.reduce((sum, [, r]) => sum + r.cart.reduce((s, l) => s + l.qty, 0), 0);
      if (target && units !== target.units) continue;
      const changes = ended.map(([key, r]): OrderChange => ({ key, record: { ...r, status: 'EXPIRED' } }));
      results.push(answered('expire', { orders: ended.length, units }, changes));
    }
  }
  return results;
}

function backdateChanges(state: OrderState, keys: readonly string[]): OrderChange[] {
  return keys.flatMap((key): OrderChange[] => {
    const record = state.record(key);
    return record ? [{ key, record: { ...record, expires: 'past' } }] : [];
  });
}

/**
 * Every answer the contract allows for the call in `state`, each with its changes and its rule. `wanted`
 * narrows expire's splits to the recorded answer's (the checker passes it; diagnostics pass none).
 */
export function orderModelResults(
  state: OrderState,
  t: TimedOrderCall,
  wanted?: OrderAnswer,
  options: OrderModelOptions = {},
): OrderModelResult[] {
  const { call } = t;
  switch (call.op) {
    case 'order': {
      const results = orderResults(state, t, call.request);
      if (options.withoutGaveUp) return results;
      return [...results, answered('order.gave-up', { outcome: 'GAVE_UP' })];
    }
    case 'release':
      return releaseResults(state, call.requestKey);
    case 'expire':
      return expireResults(state, t, wanted);
    case 'status':
      return [answered('status', { status: state.record(call.requestKey)?.status ?? 'NOT_FOUND' })];
    case 'remaining':
      return [answered('remaining', { remaining: state.free(call.sku) })];
    case 'lines':
      return [answered('lines', { lines: state.record(call.requestKey)?.cart ?? [] })];
    case 'backdate':
      return [answered('backdate', { done: true }, backdateChanges(state, call.requestKeys))];
  }
}

/**
 * Whether a recorded answer is the model's: REPLAY's status must be the order's; SOLD_OUT must name the
 * model's short sku; a HELD answer's status, where the design gives one, must be HELD.
 */
export function sameOrderAnswer(model: OrderAnswer, recorded: OrderAnswer): boolean {
  const [a, b] = [model, recorded];
  if ('outcome' in a && 'outcome' in b) {
    if (a.outcome !== b.outcome) return false;
    if (a.outcome === 'REPLAY') return a.status === b.status;
    if (a.outcome === 'SOLD_OUT') return a.sku === b.sku;
    return a.outcome !== 'HELD' || b.status === undefined || b.status === 'HELD';
  }
  if ('moved' in a && 'moved' in b) return a.moved === b.moved;
  if ('orders' in a && 'orders' in b) return a.orders === b.orders && a.units === b.units;
  if ('status' in a && 'status' in b) return a.status === b.status;
  if ('remaining' in a && 'remaining' in b) return a.remaining === b.remaining;
  if ('lines' in a && 'lines' in b) return sameLines(a.lines, b.lines);
  return 'done' in a && 'done' in b;
}

/** The order model as the linearizability search takes it, over the case's stock. */
export function orderModel(
  totals: ReadonlyMap<string, number>,
  options: OrderModelOptions = {},
): SearchModel<OrderCall, OrderAnswer, TimedOrderCall, OrderChange, OrderState> {
  return {
    start: () => new OrderState(totals),
    results: (state, timed, wanted) => orderModelResults(state, timed, wanted, options),
    sameAnswer: sameOrderAnswer,
  };
}
