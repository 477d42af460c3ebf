/**
 * What a cluster scenario's script may do with the cluster under test (ScriptContext.cluster): cause its
 * faults, each a step of the case's phases, and look at it to place them. Implemented over the case's
 * cluster by the contract whose scripts use it (its case folder's script-cluster.ts).
 */
import type { ClusterFault, ClusterMember, FaultFacts } from './cluster.ts';

export interface ClusterContext {
  /** Whether the database under test can cause `fault` (a cluster the user runs may not partition). */
  can(fault: ClusterFault): boolean;
  standbys(): Promise<ClusterMember[]>;
  /** Waits until the standby has replayed everything the primary had written when the wait began. */
  caughtUp(standby: ClusterMember): Promise<void>;
  partition(standby: ClusterMember): Promise<void>;
  heal(standby: ClusterMember): Promise<void>;
  failover(to?: ClusterMember): Promise<FaultFacts>;
  switchover(to?: ClusterMember): Promise<FaultFacts>;
  restartOldPrimary(): Promise<ClusterMember>;
  /** Σ remaining(sku) on the member writable now, as the design says, outside the case's history. */
  availableOnPrimary(): Promise<number>;
  /** The same on one member (a side of a split brain), on a session of its own. */
  availableOn(member: ClusterMember): Promise<number>;
  /** Sessions on the primary whose COMMIT is flushed there and waits for a standby (wait_event SyncRep). */
  commitsWaitingOnStandby(): Promise<number>;
  /**
   * `status` of each key served by a standby (a session on one, as a read-replica endpoint serves it),
   * each read recorded in the case's history as a client's: the history checker judges what it answered.
   */
  statusOnStandby(keys: readonly string[]): Promise<string[]>;
  /** Looks at `seen` until it holds (observed state), or fails the case naming `what`. */
  until(what: string, seen: () => Promise<boolean>): Promise<void>;
}
