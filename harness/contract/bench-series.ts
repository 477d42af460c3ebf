/**
 * A contract's side of a bench series (harness/bench/): what the series' clients send in the worker
 * threads, which answer its throughput counts, and the harness's own audit of a trial afterwards. The
 * series loop, the trials, admission, the measurement and the report are the bench's, for every contract.
 */
import type { ClientBase } from 'pg';
import type { SessionContext } from '../../strategies/contract.ts';
import type { RunDatabase } from '../database/database.ts';

/** One request of a client's loop (request `n` of client `client`): its outcome. */
export type SendOnce = (ctx: SessionContext, client: number, n: number) => Promise<string>;

/**
 * What a bench worker thread imports of a contract (BenchDesign.sender's module, its `sender` export):
 * the send of the design at `moduleUrl`, counting what its audit needs into `tally`.
 */
export type BenchSender = (
  moduleUrl: string,
  sku: string,
  tally: Record<string, number>,
) => Promise<SendOnce>;

/** What a trial's threads counted, over the whole series, warm-up included. */
export interface BenchTotals {
  /** Answers of the kind throughput counts (BenchDesign.counted). */
  counted: number;
  /** Answers by outcome, measured window only. */
  outcomes: Readonly<Record<string, number>>;
  /** The contract's own counts (its sender's), summed over the threads. */
  tally: Readonly<Record<string, number>>;
}

/** The harness's audit of a trial: drift and oversold are the stock's (0 where the contract has none). */
export interface BenchAudit {
  drift: number;
  oversold: number;
  problems: string[];
}

/** tinybench: the cost of one request with no contention at all (one client, one connection). */
export interface UncontendedEntry {
  strategy: string;
  opsPerSecond: number;
  latency: { mean: number; p99: number };
  samples: number;
}

/**
 * A design's bench series as its contract makes it (ContractBench.design): what its clients send and count,
 * its tables and the audit. Which design it is, the bench reads off the contract's catalog (BenchDesign).
 */
export interface DesignSeries {
  /** The answer throughput counts: a unit held, a key answered once. */
  counted: string;
  /** The module a worker thread imports for the clients' requests (its `sender`, a BenchSender). */
  sender: string;
  /** Clients that share their keys, dealt to one thread together: client → its group (a pair of clients sending the same keys). */
  group?(client: number): number;
  /** Why it cannot be benched on this server (too old, a capability refused); undefined when it can. */
  refusal?(db: Pick<RunDatabase, 'serverVersionNum' | 'capabilities'>): string | undefined;
  /** Installs and rolls back what the server may refuse (a design in SQL), before any series. */
  install?(admin: ClientBase): Promise<void>;
  setup(db: ClientBase, stock: number): Promise<void>;
  audit(db: ClientBase, stock: number, totals: BenchTotals): Promise<BenchAudit>;
  /** One client's uncontended cost, where the contract measures one. */
  uncontended?(db: RunDatabase, stock: number): Promise<UncontendedEntry>;
}

/** One design's bench series: its contract's part beside the design's id and module URL. */
export interface BenchDesign extends DesignSeries {
  id: string;
  /** How worker threads import it (a variant's knobs in the fragment). */
  moduleUrl: string;
}

/** The sku every bench series reserves from (a contract without stock ignores it). */
export const BENCH_SKU = 'sku-bench-01';
