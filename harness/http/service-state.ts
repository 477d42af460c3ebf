/**
 * What the requests to one reservation service share: the strategy, its two lanes to the database, the
 * metrics and the counts `GET /admission` reports, and the node identity and skus a reset replaces.
 */
import type pg from 'pg';
import type { NodeIdentity, StockLine, Strategy } from '../../strategies/contract.ts';
import type { Gate, GateCounters } from '../gate/gate.ts';
import type { ExpiryCounters } from './expiry-job.ts';
import type { GateName, ServiceMetrics } from './service-metrics.ts';

/** One kind of request's way to the database: its gate, and a pool with a connection per permit. */
export interface Lane {
  name: GateName;
  gate: Gate;
  pool: pg.Pool;
}

export interface ServiceCounters extends GateCounters {
  badRequests: number;
  /** Requests whose strategy call failed (or answered outside the contract): 500. */
  databaseErrors: number;
  /**
   * Requests answered 503 because their database connection was cut under them (INDETERMINATE for a write)
   * or could not be had (lost-connection.ts).
   */
  connectionFailures: number;
  /** Requests whose client went away before the whole answer was sent. */
  clientAborts: number;
  /** The lookups' own gate (GET /reservations/{key}, GET /stock/{sku}). */
  lookups: GateCounters;
  expiry: ExpiryCounters;
}

export interface ServiceState {
  readonly strategy: Strategy;
  /** Extra work per admitted write, before its transaction (ServiceOptions.workMs). */
  readonly workMs: number;
  /** Writes: reserve, confirm, release. */
  readonly reservations: Lane;
  /** Reads: GET /reservations/{key}, GET /stock/{sku}. */
  readonly lookups: Lane;
  readonly metrics: ServiceMetrics;
  readonly tally: Pick<
    ServiceCounters,
    'badRequests' | 'databaseErrors' | 'connectionFailures' | 'clientAborts'
  >;
  /** Replaced by each reset (POST /admin/reset): the incarnation served under, and the skus sold. */
  node: NodeIdentity;
  skus: readonly string[] | undefined;
  /** ServiceOptions.reset: absent, POST /admin/reset answers 403. */
  readonly reset: ((stock: StockLine[]) => Promise<NodeIdentity>) | undefined;
  counters(): ServiceCounters;
}
