/**
 * The reservation contract's case result: what a case of a strategy showed — its outcomes, the harness's
 * invariants over its final read, the strategy's own audit, its history, coverage and steps — discriminated
 * by status (pass, fail, n/a, broken). What every contract's result shares is verdict/case-result.ts.
 */
import type { CheckName, Expectation, IsolationLevel, SkuCounts } from '../../../../strategies/contract.ts';
import type { LatencyPercentiles } from '../../../driver/latency.ts';
import type { HistorySummary } from '../../../history/history-summary.ts';
import type {
  CasePhase,
  ExplorationSummary,
  Observations,
  OutcomeCounts,
  PermutationReport,
  ReportedStep,
} from '../../../verdict/case-result.ts';
import type { HttpFacts } from '../blackbox/exchange-log.ts';
import type { CopySummary } from './copies.ts';
import type { Invariants, SkuReading } from './invariants.ts';

interface CaseIdentity {
  id: string;
  /** Wall time of the whole case in ms (setup, drive, final read, audit; every permutation), set by the suite. */
  durationMs?: number;
  scenario: string;
  strategy: string;
  /** `measure`: a level outside the strategy's claimed isolation levels; reported, never failing the run. */
  expect: Expectation | 'measure';
  /** The isolation level the run put every session at (`run --isolation`). */
  isolation?: IsolationLevel;
  /** The server version the case ran on, when the run ran on several (`run --postgres 15,18`). */
  postgres?: string;
}

/** The strategy's own reading of its tables: a second opinion, compared with the harness's final read. */
export interface AuditSummary {
  skus: SkuCounts[];
  duplicateActive: number;
  duplicateKey: number;
  activeKeys: number;
  endedKeys: number;
}

/** What the harness read back through the business API after the case. */
export interface FinalReadSummary {
  /** How many of the keys the case sent ended in each status. */
  statuses: Record<string, number>;
  skus: SkuReading[];
  /** Keys whose answer a fault cut off, as the final read explains them: committed or not. */
  indeterminate?: { committed: number; notCommitted: number };
}

/** One sku's sell-what-remains probe as the case JSON reports it (verdict/sells-what-remains.ts). */
export interface SkuProbe {
  sku: string;
  /** The units due: remaining(sku), or 0 for a disabled sku. */
  expected: number;
  sold: number;
  answers: OutcomeCounts;
  disabled?: true;
  /** More was due than the probe sells (PROBE_UNITS_AT_MOST): it sold up to this many and stopped. */
  capped?: number;
  /** Why the probe is short of a verdict on this sku (a node answered neither HELD nor SOLD_OUT). */
  refusedBy?: string;
}

/** What a measured case drove: contract operations called, and pause points it held or killed at. */
export interface CaseCoverage {
  exercised: string[];
  pausePoints: string[];
}

/** A case that ran to its end and was judged: `pass` or `fail`, each its own variant below. */
interface JudgedCase<S extends 'pass' | 'fail'> extends CaseIdentity {
  status: S;
  outcomes: OutcomeCounts;
  /** The outcomes phase by phase, in the order the phases ran (they add up to `outcomes`). */
  phases: CasePhase[];
  /** Computed by the harness from the answers and its final read; never the strategy's self-report. */
  invariants: Invariants;
  /** The strategy's own audit; absent for a black box, which has none (`noAudit` says so). */
  audit?: AuditSummary;
  /** `no audit: black box (…)` where there is no audit to compare the final read with. */
  noAudit?: string;
  finalRead: FinalReadSummary;
  /** The case's history checked against the contract's model (`linearizable`). */
  history: HistorySummary;
  /** The sell-what-remains probe after the final read, per sku: units due, units sold, its answers. */
  sellsWhatRemains?: SkuProbe[];
  coverage: CaseCoverage;
  /** Checks that fired (for a control: the one in `caughtBy` must be among them). */
  fired: CheckName[];
  /** Retries the strategy reported (SessionContext.retried), by reason, summed over the case's requests. */
  retries?: Record<string, number>;
  /** Requests that failed with an exception, by SQLSTATE (`other` when it had none). */
  sqlstates?: Record<string, number>;
  /** One line on what this case showed. */
  boundary: string;
  /** Why a case failed: each expectation it missed. Empty on pass. */
  problems: string[];
  /** Per-request latency of a clients scenario (includes time held at a barrier). */
  latency?: LatencyPercentiles;
  /** A black box's HTTP exchanges in this case: per endpoint, status codes, 503s retried, latency. */
  http?: HttpFacts;
  /** The recorded steps of an interleaving scenario: blocked or not, and each step's result. */
  steps?: ReportedStep[];
  /** What a script scenario saw along the way (units each expiry run returned, …). */
  observations?: Observations;
  /** Every order of an interleaving's steps, when they were all run; the first is the listed one. */
  permutations?: PermutationReport[];
  /** What the scenario adds to the strategy's boundary row (e.g. what a crash cost). */
  boundaryNote?: string;
  /** The scenario whose counts headline the boundary table for a design that showed no boundary. */
  headline?: true;
  /** The schema holding this case's tables when they were kept for inspection. */
  keptSchema?: string;
  /**
   * A cluster case: every member that was writable at some point, as the final read found it (the first is
   * the authority, whose read and audit the other counts come from); lost and oversold count across them.
   */
  copies?: CopySummary[];
  /** `explore/<design>`: what the explorer ran, and the finding's spec (docs/explore.md). */
  exploration?: ExplorationSummary;
}

export type PassedCase = JudgedCase<'pass'>;
export type FailedCase = JudgedCase<'fail'>;
export type MeasuredCase = PassedCase | FailedCase;

export interface SkippedCase extends CaseIdentity {
  status: 'n/a';
  outcomes: OutcomeCounts;
  invariants: null;
  boundary: string;
  reason: string;
  /**
   * What the strategy lacks for this scenario (optional operations, pause points). Non-empty means a
   * coverage gap (`--require-coverage` fails on it); empty means the strategy chose not to take part.
   */
  coverage: { missing: string[] };
}

/** A case that could not be measured at all (the harness failed, e.g. a session never progressed). */
export interface BrokenCase extends CaseIdentity {
  status: 'broken';
  outcomes: OutcomeCounts;
  invariants: null;
  boundary: string;
  problems: string[];
  /** The schema holding what the case had made when it broke, kept for inspection. */
  keptSchema?: string;
}

/** Discriminated by `status`, one value per variant: pass, fail, n/a, broken. */
export type CaseResult = PassedCase | FailedCase | SkippedCase | BrokenCase;
