/**
 * A reservation script's cluster (ScriptContext.cluster): the faults every contract's scripts cause
 * (cluster/cluster-context.ts), and the looks that place them through the design. Implemented over the
 * case's cluster by script-cluster.ts.
 */
import type { ClusterMember } from '../../../cluster/cluster.ts';
import type { ClusterFaults } from '../../../cluster/cluster-context.ts';

/** A script's cluster: the faults every contract's scripts cause, and looks through the design. */
export interface ClusterContext extends ClusterFaults {
  /** Σ remaining(sku) on one member (a side of a split brain), as the design says, on a session of its own. */
  availableOn(member: ClusterMember): Promise<number>;
  /** Sessions on the primary whose COMMIT is flushed there and waits for a standby (wait_event SyncRep). */
  commitsWaitingOnStandby(): Promise<number>;
  /**
   * `status` of each key served by a standby (a session on one, as a read-replica endpoint serves it),
   * each read recorded in the case's history as a client's: the history checker judges what it answered.
   */
  statusOnStandby(keys: readonly string[]): Promise<string[]>;
}
