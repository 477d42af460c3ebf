/**
 * The settings of a run every contract's cases take: how a case keeps its tables, how long it may wait, which
 * orders of a spec it runs, and what a run asks of all of them (repeats, the scenarios' overrides).
 */
import type { IsolationLevel } from '../../strategies/contract.ts';
import type { ClusterSource } from '../cluster/cluster-source.ts';

export interface CaseSettings {
  /** Keep a failed case's schema for inspection (the default; a passing case is always dropped). */
  keepFailed: boolean;
  /** `run --keep`: keep every case's schema, passing ones too. */
  keepAll?: boolean;
  /** How long any session may wait at a barrier or stay blocked before the case is declared stuck. */
  timeoutMs: number;
  /**
   * Specs: `listed` runs the permutation the spec lists; `all` also runs every other order of the steps
   * that keeps each session's own order, each on fresh tables, and reports each one.
   */
  permutations: 'listed' | 'all';
  /**
   * Where the explorer's programs that fail over get their synchronous cluster (`explore --cluster
   * embedded`, one per program); without it no program fails over.
   */
  failoverCluster?: ClusterSource;
}

/** What the many-client scenarios take from the command line instead of their own inputs. */
export interface ScenarioOverrides {
  clients?: number;
  /** Replaces the total of the scenario's first sku. */
  stock?: number;
}

/** What a run asks of every contract's cases; a contract takes what applies to its scenarios. */
export interface RunSettings {
  /** Each case this many times (`run --repeat`), `#n` after the id when more than once. */
  repeat: number;
  overrides: ScenarioOverrides;
  /** Each case once per level, every session at that default_transaction_isolation (`run --isolation`). */
  isolation?: readonly IsolationLevel[];
  /** Worker threads the clients are scheduled on (default: one per core). */
  threads?: number;
  /** Where the cases of a cluster scenario get their cluster, when the run made one (`run --cluster`). */
  cluster?: ClusterSource;
}
