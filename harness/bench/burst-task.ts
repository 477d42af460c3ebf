/**
 * The flash-sale burst as sent to a child process and to each of its worker threads, and what comes back:
 * plain data, cloneable across threads and over the IPC channel.
 */
import type { NodeIdentity } from '../../strategies/contract.ts';
import type { CaseConnection } from '../driver/case-connection.ts';
import type { AdmissionSettings } from '../gate/admission.ts';

/** Each burst connection is named this plus its share, so the server's connections can be counted. */
export const BURST_APPLICATION_PREFIX = 'reservebench-burst-';

/** The answer a request ends with when admission turned it away on every attempt its client allows. */
export const GAVE_UP = 'GAVE_UP_503';

/** How a client retries a 503: bounded retries, full-jitter exponential backoff from a seeded generator. */
export interface RetryPolicy {
  /** The most times one request is sent again after a 503; then it gives up (GAVE_UP_503). */
  retries: number;
  baseMs: number;
  capMs: number;
  seed: number;
}

/** One process's part of a burst: its threads' shares, and the gate its threads share when admission is on. */
export interface BurstOrder {
  strategyModuleUrl: string;
  connection: CaseConnection;
  sku: string;
  /** The advisory lock every share waits on (shared) until the parent lets go of it (exclusive). */
  releaseLock: number;
  admission?: AdmissionSettings;
  retry: RetryPolicy;
  shares: BurstShareSpec[];
  timeoutMs: number;
}

export interface BurstShareSpec {
  /** Global index of the share, for its connections' names and its retry jitter's stream. */
  share: number;
  node: NodeIdentity;
  /** How many connections the share opens before the release. */
  connections: number;
  /** The global indices of the requests (one user each) this share sends. */
  requests: number[];
}

/** One worker thread's task: its share, and the process's shared gate. */
export interface BurstShareTask extends Omit<BurstOrder, 'shares' | 'admission'> {
  spec: BurstShareSpec;
  admission?: { buffer: SharedArrayBuffer; settings: AdmissionSettings };
}

/** What became of one request; times in ms on sharedClockMs, the one clock of every process. */
export interface BurstRecord {
  request: number;
  /** When the request first came to the service's front door (the gate, or the connection pool). */
  arrivedAt: number;
  answeredAt: number;
  /** HELD, SOLD_OUT, …, GAVE_UP_503, or ERROR. */
  outcome: string;
  /** 503s its client retried. */
  retries: number;
  /** The SQLSTATE of an ERROR. */
  sqlstate?: string;
}

/**
 * When a share's release lock was granted: on its own process's clock (sharedClockMs) and on the server's
 * (ms since the epoch, read by the waiting statement itself once the lock was its). Agents on other hosts
 * move their times onto the server's clock through it: their own clocks are not the bench's.
 */
export interface ShareRelease {
  grantedAt: number;
  serverMs: number;
}

/** What one share sends back: a record per request, and its release. */
export interface ShareResult {
  records: BurstRecord[];
  release: ShareRelease;
}

/**
 * The clock every process and thread of a burst reads: CLOCK_MONOTONIC (process.hrtime), one clock for the
 * whole machine, in ms with sub-millisecond resolution. Not performance.now(): each process counts that
 * from its own start, and timeOrigin + now() drifts from another process's as the wall clock is slewed.
 */
export const sharedClockMs = () => Number(process.hrtime.bigint()) / 1e6;
