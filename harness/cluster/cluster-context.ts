/**
 * What a cluster scenario's script may do with the cluster under test, whatever its contract: cause its
 * faults, each a step of the case's record, and look at the cluster to place them (implemented once, in
 * cluster-faults.ts). A contract adds its own looks through its design, in its own case folder.
 */
import type { ClusterFault, ClusterMember, FaultFacts } from './cluster.ts';
import type { CommitMark } from './commits-since.ts';

export interface ClusterFaults {
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
  /** The primary's transactions as they stand now (taken once a standby's link is cut): commits-since.ts. */
  commitMark(): Promise<CommitMark>;
  /** Write transactions the primary has committed since `mark`, as it says (no design is asked). */
  committedSince(mark: CommitMark): Promise<number>;
  /** Looks at `seen` until it holds (observed state), or fails the case naming `what`. */
  until(what: string, seen: () => Promise<boolean>): Promise<void>;
}
