/**
 * The contract every reservation design implements. Tables are the strategy's own; the behaviour
 * (outcomes, statuses, invariants it reports) is common, so the harness can drive and audit any design
 * the same way. A user's own strategy is a module whose default export satisfies `Strategy`.
 */
import type { ClientBase } from 'pg';

export const OUTCOMES = ['HELD', 'REPLAY', 'SOLD_OUT', 'USER_LIMIT', 'KEY_REUSED', 'BAD_REQUEST'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const STATUSES = ['HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED'] as const;
export type ReservationStatus = (typeof STATUSES)[number];

export interface ReserveRequest {
  requestKey: string;
  user: string;
  sku: string;
  ttlMs: number;
}

export interface ReserveResult {
  outcome: Outcome;
  /** The reservation's current status for HELD and REPLAY answers. */
  status?: ReservationStatus;
}

/**
 * Named places inside an operation where the harness may hold a session (a barrier, an interleaving step)
 * or kill the process. `after-read`: the strategy has read what its decision depends on, nothing is
 * decided yet. `before-commit`: every write is done, the transaction is still open.
 * `between-transactions`: an operation that spans transactions has committed its first one.
 * `after-memory-before-ledger`: an in-memory count is decremented, its ledger row not yet written.
 */
export const PAUSE_POINTS = [
  'after-read',
  'before-commit',
  'between-transactions',
  'after-memory-before-ledger',
] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];

/**
 * The process (or worker thread standing for one) a session runs on, for designs that keep state in
 * memory per node. A restart gives the node a new `incarnation`: memory kept under the old one is gone.
 */
export interface NodeIdentity {
  /** node-1, node-2, … : stable across restarts. */
  name: string;
  /** 0-based position among `count` nodes. */
  index: number;
  count: number;
  /** Unique per start of the node (and per case). */
  incarnation: string;
}

/** What an operation gets from the harness: its own connection, the pause hook and its node. */
export interface SessionContext {
  db: ClientBase;
  pause(point: PausePoint): Promise<void>;
  node?: NodeIdentity;
}

export interface StockLine {
  sku: string;
  total: number;
}

/** Per-sku counts read from the strategy's own tables, inside the harness's REPEATABLE READ snapshot. */
export interface SkuCounts {
  sku: string;
  total: number;
  /** What the strategy's own state says remains. */
  available: number;
  /** HELD + CONFIRMED rows. */
  active: number;
}

export interface StrategyAudit {
  skus: SkuCounts[];
  /** Users with more than one active reservation on one sku. */
  duplicateActive: number;
  /** request_keys that own more than one row. */
  duplicateKey: number;
  /** request_keys of every active reservation, to reconcile against the answers clients received. */
  activeKeys: string[];
  /** request_keys whose reservation the lifecycle ended (EXPIRED or RELEASED): acknowledged, not lost. */
  endedKeys: string[];
}

export type Expectation = 'hold' | 'violate';

export interface Strategy {
  id: string;
  title: string;
  /** One line: how the design stays correct (or, for a control, what it gets wrong). */
  guarantee: string;
  expect: Expectation;
  /**
   * Scenarios the strategy takes part in; omitted means all. A negative control names the scenarios that
   * must catch it, every other case is reported `n/a` with `notApplicable` as the reason.
   */
  scenarios?: readonly string[];
  notApplicable?: string;
  /** Pause points this strategy passes through (the harness refuses to hold one it never reaches). */
  pausePoints: readonly PausePoint[];
  /** Creates the strategy's tables in the current schema (search_path) and loads the stock. */
  setup(db: ClientBase, stock: readonly StockLine[]): Promise<void>;
  reserve(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult>;
  /** HELD → CONFIRMED (until the expiry job has moved it); true when this call moved the row. */
  confirm?(ctx: SessionContext, requestKey: string): Promise<boolean>;
  /** HELD → RELEASED with one unit back; true when this call moved the row. */
  release?(ctx: SessionContext, requestKey: string): Promise<boolean>;
  /** Every HELD past expires_at → EXPIRED; returns the units this call gave back. */
  expire?(ctx: SessionContext): Promise<number>;
  status?(db: ClientBase, requestKey: string): Promise<ReservationStatus | 'NOT_FOUND'>;
  /** Test hook: moves these reservations' expiry into the past, so expiry is tested without waiting. */
  backdate?(db: ClientBase, requestKeys: readonly string[]): Promise<void>;
  audit(db: ClientBase): Promise<StrategyAudit>;
}

/** A loaded strategy together with the module it came from, so worker threads can import it again. */
export interface StrategyRef {
  strategy: Strategy;
  moduleUrl: string;
}

export function isStrategy(value: unknown): value is Strategy {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  return (
    typeof s.id === 'string' &&
    typeof s.title === 'string' &&
    typeof s.guarantee === 'string' &&
    (s.expect === 'hold' || s.expect === 'violate') &&
    Array.isArray(s.pausePoints) &&
    typeof s.setup === 'function' &&
    typeof s.reserve === 'function' &&
    typeof s.audit === 'function'
  );
}
