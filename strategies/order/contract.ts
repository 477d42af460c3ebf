/**
 * The third business contract beside reservations and payments: multi-line orders, as a shop has them
 * (the isolation-matrix chapter's deadlock drill and lost update, the frozen-stock chapter's frozen stock).
 * An order names a cart — lines of a sku and a quantity — and holds every line or none: all its quantities
 * are taken from their skus in one step, or nothing is. `release` and `expire` put every line back, exactly
 * once. The harness judges a design only through its answers and its own reads (`status`, `lines` of every
 * key it sent, `remaining` of every sku), compared with the design's `audit`, never trusted instead of them.
 */
import type { ClientBase } from 'pg';
import type { Capability, Expectation, SessionContext, StockLine, StrategyParameter } from '../contract.ts';

/**
 * HELD: every line was taken; the order is recorded HELD. REPLAY: the key is recorded with the same user
 * and cart; the answer carries the order's current status. SOLD_OUT: a line wants more than its sku has
 * left; the answer names that sku (`sku`), and nothing is held. KEY_REUSED: the key is recorded with
 * another user or cart. BAD_REQUEST: a cart the contract refuses (docs/contract.md, "Orders"), or a sku
 * with no stock. GAVE_UP: a retrying design ran out of attempts; nothing of the request was written.
 */
export const ORDER_OUTCOMES = ['HELD', 'REPLAY', 'SOLD_OUT', 'KEY_REUSED', 'BAD_REQUEST', 'GAVE_UP'] as const;
export type OrderOutcome = (typeof ORDER_OUTCOMES)[number];

export const ORDER_STATUSES = ['HELD', 'RELEASED', 'EXPIRED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** One line of a cart: a quantity of one sku. */
export interface OrderLine {
  sku: string;
  qty: number;
}

export interface OrderRequest {
  requestKey: string;
  user: string;
  /** The cart, in the order the client listed it (a design that sorts it does so itself). */
  lines: readonly OrderLine[];
  ttlMs: number;
}

export interface OrderResult {
  outcome: OrderOutcome;
  /** The order's current status for HELD (always HELD) and REPLAY answers. */
  status?: OrderStatus;
  /** For SOLD_OUT: a sku whose line wants more than it has left. */
  sku?: string;
}

/** What one `expire` call moved: the orders it ended and the units (Σ of their lines) it put back. */
export interface ExpireResult {
  orders: number;
  units: number;
}

/**
 * Where the harness may hold or kill an operation. `after-read`: what the decision depends on is read,
 * nothing is written (the isolation-matrix chapter's "both read 100"). `after-first-line`: the cart's first
 * line, in the order the design takes them, is taken and its sku's row locked, the transaction open (the
 * isolation-matrix chapter's "A updates row 1 and waits"). `between-transactions`: an order that spans
 * transactions has committed its first one. `before-commit`: every write is done, the transaction is still
 * open. The names of the reservation contract's points, and one of its own.
 */
export const ORDER_PAUSE_POINTS = [
  'after-read',
  'after-first-line',
  'between-transactions',
  'before-commit',
] as const;
export type OrderPausePoint = (typeof ORDER_PAUSE_POINTS)[number];

/** The pause points where an order has committed nothing. */
export const UNDECIDED_ORDER_PAUSE_POINTS: readonly OrderPausePoint[] = [
  'after-read',
  'after-first-line',
  'before-commit',
];

/** The operations that can pass pause points; each declares its own. */
export const ORDER_PAUSING_OPERATIONS = ['order', 'release', 'expire'] as const;
export type OrderPausingOperation = (typeof ORDER_PAUSING_OPERATIONS)[number];
export type OrderPausePoints = Partial<Record<OrderPausingOperation, readonly OrderPausePoint[]>> & {
  order: readonly OrderPausePoint[];
};

/** What an operation gets from the harness: the reservation contract's context, with this contract's points. */
export interface OrderSessionContext extends Omit<SessionContext, 'pause' | 'pausesAt'> {
  pause(point: OrderPausePoint): Promise<void>;
  /** Whether `pause(point)` may hold the session in this call; absent: it may at every point. */
  pausesAt?(point: OrderPausePoint): boolean;
}

/** Per sku, as the design's own tables say: its stock, what remains, and what its HELD orders hold. */
export interface OrderSkuCounts {
  sku: string;
  total: number;
  remaining: number;
  /** Σ of the quantities of the lines of HELD orders. */
  held: number;
}

/**
 * The design's own reading of its tables: it alone sees rows no key the harness sent reaches. The harness
 * compares it with its own reads (orderAuditMismatch).
 */
export interface OrderAudit {
  skus: OrderSkuCounts[];
  /** request_keys of every HELD order. */
  heldKeys: string[];
  /** request_keys owning more than one order. */
  keysWithManyOrders: number;
  /** Orders whose lines are not their whole cart (the design's own count of partial orders). */
  partialOrders: number;
  /** Lines under no order. */
  linesWithoutOrder: number;
  /**
   * For a design that keeps books (the frozen-stock chapter's available/frozen counters and ledger): whether
   * every sku's counters add up (`available + frozen = total`) and how far replaying the ledger from zero
   * lands from today's counters (Σ of the absolute differences).
   */
  books?: { reconciled: boolean; ledgerReplayDrift: number };
}

/**
 * The checks of the order contract; the harness computes each from its own reads (the contract's
 * invariants, harness/contracts/order/).
 */
export const ORDER_CHECKS = [
  'allOrNothing',
  'oversold',
  'drift',
  'oneOrderPerKey',
  'orderAuditMismatch',
  'reconciled',
  'ledgerReplayDrift',
  'sellsWhatRemains',
  'linearizable',
  'outcomes',
  'observations',
  'blocking',
  'errors',
  'exercised',
] as const;
export type OrderCheckName = (typeof ORDER_CHECKS)[number];

export const ORDER_CHECK_MEANING: Readonly<Record<OrderCheckName, string>> = {
  allOrNothing:
    'a sent key whose lines (read through lines) are not the whole cart of a request sent with it, or a key with lines and no order: a partial order',
  oversold: 'Σ per sku of max(0, held − total), held being the quantities of the lines of the HELD orders',
  drift:
    'a sku whose total − remaining(sku) − held is not 0: a quantity returned twice or lost to an overwrite (more remain), or taken and never returned (fewer)',
  oneOrderPerKey: 'a sent key whose lines name a sku more than once (two orders, or a line written twice)',
  orderAuditMismatch: "the design's own audit() disagrees with the harness's reads",
  reconciled: "the design's books (available + frozen = total per sku) do not add up",
  ledgerReplayDrift: "replaying the design's stock ledger does not give today's counters",
  sellsWhatRemains:
    'after the final read, an order of exactly remaining(sku) units of a sku is not HELD, or one more unit after it is not SOLD_OUT: the design does not sell what it says remains',
  linearizable:
    'no order of the case\'s operations, consistent with real time, gives every recorded answer under the order model (docs/contract.md, "Orders")',
  outcomes: "the answer counts differ from the scenario's exact expectation",
  observations:
    "a step's answer (units an expiry returned, a remaining read, …) or a sku's final remaining differs from the scenario's",
  blocking:
    'an interleaving step was seen waiting (pg_blocking_pids) where it must not, or not where it must',
  errors:
    'an operation failed with an exception the scenario did not cause on purpose (a 40P01 answered as an error)',
  exercised:
    'the case did not drive what it claims (no session killed between lines, no carts overlapping, …)',
};

export interface OrderDesign {
  /** The contract a design implements: scenarios that drive another contract are not its cases. */
  contract: 'order';
  id: string;
  title: string;
  /** One line: how the design stays correct (or, for a control, what it gets wrong). */
  guarantee: string;
  expect: Expectation;
  /** Per order scenario, the checks that must catch a negative control (any one of them). */
  caughtBy?: Readonly<Record<string, readonly OrderCheckName[]>>;
  needs?: readonly Capability[];
  /** The design's knobs, as a reservation strategy's (`--param <id>.<knob>=v1,v2,…`). */
  parameters?: Readonly<Record<string, StrategyParameter>>;
  /** The design with these knob values (every declared knob given, each within its bounds). */
  configure?(values: Readonly<Record<string, number>>): OrderDesign;
  /** Pause points each operation passes, in order. */
  pausePoints: OrderPausePoints;
  /** Creates the design's tables in the current schema (search_path) and loads the stock. */
  setup(db: ClientBase, stock: readonly StockLine[]): Promise<void>;
  order(ctx: OrderSessionContext, request: OrderRequest): Promise<OrderResult>;
  /** HELD → RELEASED with every line's quantity back; true when this call moved the order. */
  release(ctx: OrderSessionContext, requestKey: string): Promise<boolean>;
  /** Every HELD order past its expiry → EXPIRED, its lines back. */
  expire(ctx: OrderSessionContext): Promise<ExpireResult>;
  status(db: ClientBase, requestKey: string): Promise<OrderStatus | 'NOT_FOUND'>;
  /**
   * The lines recorded under the key, whatever its status (a RELEASED order keeps its lines: they say what
   * it held), sorted by sku: every line of every order the key owns. None for an unknown key.
   */
  lines(db: ClientBase, requestKey: string): Promise<readonly OrderLine[]>;
  /** What the design would still sell of `sku`, from its own stock state, never from counting lines. */
  remaining(db: ClientBase, sku: string): Promise<number>;
  /** Test hook: moves these orders' expiry into the past, so expiry is tested without waiting. */
  backdate?(db: ClientBase, requestKeys: readonly string[]): Promise<void>;
  audit(db: ClientBase): Promise<OrderAudit>;
}
