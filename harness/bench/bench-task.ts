/** A benchmark series as sent to a worker thread, and what each thread sends back. */
import type { NodeIdentity } from '../../strategies/contract.ts';
import type { BarrierHandle, CaseConnection } from '../driver/case-connection.ts';
import type { AdmissionSettings } from '../gate/admission.ts';
import type { OpenSettings, OpenTally } from './open-model.ts';

/** Phases of a series, set by the main thread in one shared cell. */
export const PHASE = { warmUp: 0, measure: 1, stop: 2 } as const;

/** Each client's connection is named this plus its index, so the server's share of a series can be found. */
export const CLIENT_APPLICATION_PREFIX = 'reservebench-bench-';

export interface BenchTask {
  /** The module whose `sender` makes the clients' requests (BenchDesign.sender), and the answer counted. */
  sender: string;
  counted: string;
  /** The design's module URL, a variant's knobs in its fragment. */
  strategyModuleUrl: string;
  connection: CaseConnection;
  /** Indices of the virtual clients this thread runs (they also make their keys unique). */
  clients: number[];
  node: NodeIdentity;
  sku: string;
  start: BarrierHandle;
  /** Int32Array cell 0 holds the PHASE. */
  phase: SharedArrayBuffer;
  admission?: { buffer: SharedArrayBuffer; settings: AdmissionSettings };
  /**
   * Open model: the thread's clients serve its share of the series' arrivals (every `stride`-th from
   * `first` on) instead of reserving in a closed loop.
   */
  open?: { settings: OpenSettings; first: number; stride: number };
  timeoutMs: number;
}

export interface BenchThreadResult {
  /**
   * Latency of every request started while measuring (ms), admission wait included; in the open model
   * from the arrival's due time (the open tally has the service times).
   */
  latenciesMs: number[];
  outcomes: Record<string, number>;
  errorsBySqlstate: Record<string, number>;
  /** Requests turned away by admission while measuring (each retried by its client). */
  rejected: number;
  /** Attempts the design itself made again (SessionContext.retried: a lost version check, a 40001), by reason. */
  designRetries: Record<string, number>;
  /** Answers of the kind throughput counts over the whole series, warm-up included (the audit's). */
  countedTotal: number;
  /**
   * The contract's own counts over the whole series, warm-up included (e.g. the distinct keys
   * answered; clients that share keys run on one thread, so threads share no key).
   */
  tally: Record<string, number>;
  /** Open model only: what became of the arrivals this thread took while measuring. */
  open?: OpenTally;
}
