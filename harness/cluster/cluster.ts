/**
 * A replicated PostgreSQL as the database under test: a primary and its standbys, whoever runs them (the
 * suite's embedded cluster, Patroni, or any manager through the user's own commands). A cluster scenario
 * drives its clients at the cluster's members (each session finds the writable one itself,
 * database/member-connection.ts) and its faults through this interface, each placed by what the cluster
 * is seen to be in (a standby's replay position, the manager's own word), never by a sleep. What a
 * backend cannot do makes the scenarios that need it n/a, with the reason.
 */

import type { ClusterBackend, ClusterEnvironment } from '../database/environment.ts';

export { CLUSTER_BACKENDS, type ClusterBackend, type ClusterEnvironment } from '../database/environment.ts';

/** `sync`: a commit waits for a standby's flush (`synchronous_standby_names`); `async`: it does not. */
export type Replication = 'sync' | 'async';

/** The faults a cluster scenario may cause, and what each does (docs/cluster.md). */
export const CLUSTER_FAULTS = {
  failover:
    'the primary goes away (killed, or failed over by the manager) and a standby is promoted; clients find it',
  switchover:
    'the primary hands over to a standby that has all its WAL, and follows it as a standby (nothing lost)',
  partition: "a standby's replication link is cut (nothing passes either way) until it is healed",
  'promote-stale': 'a standby whose link was cut is promoted instead of the one that has every commit',
  'restart-old-primary':
    'the old primary starts again, writable, beside the promoted standby (split brain), and clients reach both',
  'standby-session': 'sessions on a standby: reads served by a standby',
} as const;
export type ClusterFault = keyof typeof CLUSTER_FAULTS;

/** What a cluster scenario needs of the database under test. */
export interface ClusterNeeds {
  replication: Replication;
  /** Standbys besides the primary. */
  standbys: number;
  faults: readonly ClusterFault[];
}

export interface ClusterMember {
  /** member1, member2, … (embedded); the manager's own names otherwise. */
  name: string;
  /** Its URL, with credentials, naming the maintenance database; never printed (redact it). */
  url: string;
}

/** A copy of the data the final read reads: a member that was writable at some point of the case. */
export interface ClusterCopy {
  member: string;
  /** Its URL for reading (for a stopped old primary: started again read-only, on a port no client knows). */
  url: string;
  /**
   * `survivor`: writable at the end — the cluster goes on with it (two in a split brain); `discarded`:
   * writable once, not any more (a killed or demoted primary): a manager rewinds or rebuilds it, so what it
   * alone holds is lost.
   */
  role: 'survivor' | 'discarded';
}

/** What a fault took: how long no member took writes, by the suite's own look at the members. */
export interface FaultFacts {
  /** From the moment the primary stopped taking writes to the first answer of a writable member. */
  unavailableMs: number;
  /** The member writable afterwards. */
  primary: string;
}

export interface DatabaseCluster {
  backend: ClusterBackend;
  replication: Replication;
  members: readonly ClusterMember[];
  /** Whether this cluster can cause `fault` (a manager's cluster cannot have its link cut by the suite). */
  can(fault: ClusterFault): boolean;
  environment(): ClusterEnvironment;
  /** The member taking writes now (asked of the members themselves). */
  primary(): Promise<ClusterMember>;
  /** Standbys now, in their order; the first is the one a failover promotes. */
  standbys(): Promise<ClusterMember[]>;
  /** Waits until `standby` has replayed all the WAL the primary had written when the wait began. */
  caughtUp(standby: ClusterMember): Promise<void>;
  partition(standby: ClusterMember): Promise<void>;
  heal(standby: ClusterMember): Promise<void>;
  /** The primary goes away and `to` (default: the first standby) is promoted; resolves once it takes writes. */
  failover(to?: ClusterMember): Promise<FaultFacts>;
  switchover(to?: ClusterMember): Promise<FaultFacts>;
  /** The primary a failover stopped starts again, writable, beside the promoted one. */
  restartOldPrimary(): Promise<ClusterMember>;
  /** Every member writable at some point, readable now, with its role (the final read reads each). */
  copies(): Promise<ClusterCopy[]>;
  /**
   * Back to a primary and its streaming standbys before the next case (a cluster the user runs), its
   * `replication` read again from the primary: each case is judged on the mode it ran under.
   */
  settle(): Promise<void>;
  /** Stops what the suite started; `keep` keeps the members' data for inspection. Lines for the user. */
  close(options: { keep: boolean }): Promise<string[]>;
}

/** Why `cluster` cannot give what a scenario with `needs` asks of its shape: too few standbys, a fault it cannot cause. */
export function cannotCause(cluster: DatabaseCluster, needs: ClusterNeeds): string | undefined {
  const standbys = cluster.members.length - 1;
  if (needs.standbys > standbys)
    return `the cluster has ${standbys} standby(s); the scenario needs ${needs.standbys}`;
  const missing = needs.faults.filter((f) => !cluster.can(f));
  if (missing.length > 0) return `the ${cluster.backend} cluster cannot cause: ${missing.join(', ')}`;
  return undefined;
}

/** Why a cluster replicating `replication` now cannot run a scenario with `needs`, if so. */
export function otherReplication(replication: Replication, needs: ClusterNeeds): string | undefined {
  if (needs.replication === replication) return undefined;
  return `the cluster replicates ${replication === 'sync' ? 'synchronously' : 'asynchronously'}; the scenario needs ${needs.replication === 'sync' ? 'synchronous' : 'asynchronous'} replication`;
}

/** Why `cluster` cannot run a scenario with `needs` (its shape, its faults, its replication now), if so. */
export function cannotRun(cluster: DatabaseCluster, needs: ClusterNeeds): string | undefined {
  return cannotCause(cluster, needs) ?? otherReplication(cluster.replication, needs);
}
