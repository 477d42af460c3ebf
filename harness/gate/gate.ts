/**
 * A gate in front of the database, as a service over a design sees it: `enter` waits for a place and says how
 * it went (a ticket), and an admitted request's pass is left once, when its work is over. Three kinds:
 * `local`, one gate per process (the flash-sale lab's admission inside one process, admission.ts); `postgres`
 * and `redis`, one gate shared by every instance given the same store and name, whose LIMIT holds across them
 * all (store-gate.ts). A shared gate declares what it does when its store cannot be reached: `closed` turns
 * the request away (503, nothing written), `open` lets it through on its instance's own local gate, so the
 * bound falls back to LIMIT per instance — what Envoy's global rate limit does by default.
 */
import type { AdmissionCounters, AdmissionSettings, Ticket } from './admission.ts';

export const GATE_KINDS = ['local', 'postgres', 'redis'] as const;
export type GateKind = (typeof GATE_KINDS)[number];

export const FAILURE_MODES = ['closed', 'open'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

/** How long a shared permit is held without renewal before the store gives it to another (5 s). */
export const DEFAULT_LEASE_MS = 5_000;

/** Which gate a service puts in front of each of its lanes, and how a shared one behaves. */
export interface GateChoice {
  kind: GateKind;
  /** A shared gate's behaviour when its store cannot be reached (closed). */
  failureMode: FailureMode;
  /** A shared permit's lease: a holder that dies gives it back this long after its last renewal. */
  leaseMs: number;
  /** The Redis server of a `redis` gate (never printed with its password). */
  redisUrl?: string | undefined;
}

export const LOCAL_GATE: GateChoice = { kind: 'local', failureMode: 'closed', leaseMs: DEFAULT_LEASE_MS };

export interface GateCounters extends AdmissionCounters {
  kind: GateKind;
  failureMode: FailureMode;
  /** Attempts that found the store unreachable (each answered as `failureMode` says). */
  storeFailures: number;
  /** Requests let through on the local gate because the store could not be reached (`open` only). */
  failedOpen: number;
  /** Permits whose lease ran out while their request still held them (a renewal found them gone). */
  leasesLost: number;
}

/** An admitted request's hold on the gate; `leave` once, in `finally`, gives its place back. */
export interface Pass {
  ticket: Ticket;
  leave(): Promise<void>;
}

export interface Gate {
  readonly kind: GateKind;
  readonly settings: AdmissionSettings;
  enter(): Promise<Pass>;
  counters(): GateCounters;
  /** Lets go of the store (a shared gate); call once nothing is inside. */
  close(): Promise<void>;
}

export const isRejected = (ticket: Ticket) => ticket.startsWith('REJECTED_');
