/**
 * Where a run's cluster cases get their cluster (`run --cluster`): the embedded backend brings up a new
 * cluster for each case, shaped as the scenario says (its replication, its standbys) and removed after
 * it; a cluster the user runs (Patroni, or any manager through the user's commands) is one for the whole run,
 * brought back to a healthy state by its manager before each case. Either way one cluster case runs at a
 * time: a failover under load, timed by what the members are seen doing, is not shared with another.
 */
import type { Capabilities } from '../database/capabilities.ts';
import type { Durability } from '../database/durability.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import {
  type ClusterBackend,
  type ClusterEnvironment,
  type ClusterNeeds,
  cannotCause,
  type DatabaseCluster,
  otherReplication,
} from './cluster.ts';
import { type ClusterRunDatabase, openClusterDatabase } from './cluster-database.ts';
import { startEmbeddedCluster } from './embedded-cluster.ts';

/** One case's cluster and its run database; `close` drops (or keeps) them and returns lines for the user. */
export interface OpenedCluster {
  db: ClusterRunDatabase;
  close(keep: boolean): Promise<string[]>;
}

export interface ClusterSource {
  backend: ClusterBackend;
  /** What the report's environment says (the manager of a cluster the user runs). */
  environment(): ClusterEnvironment;
  /** Why a scenario with `needs` is n/a here, by the cluster's shape and faults; undefined when it may run. */
  cannot(needs: ClusterNeeds): string | undefined;
  /**
   * The cluster for one case, after the case before it is done with its own; `{ cannot }` when the
   * cluster, as it is at the case's turn (its replication read again), cannot run it.
   */
  open(needs: ClusterNeeds, probed: Capabilities | undefined): Promise<OpenedCluster | { cannot: string }>;
  /** At the run's end: what was kept, and how to reach it. */
  close(): Promise<string[]>;
}

/** One holder at a time: `open` waits for the previous case's `close`. */
class Turns {
  private last: Promise<void> = Promise.resolve();

  take(): Promise<() => void> {
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = this.last;
    this.last = before.then(() => mine);
    return before.then(() => release);
  }
}

/** A new embedded cluster per case, on the run's major and durability. */
export function embeddedClusters(major: PostgresMajor, durability: Durability): ClusterSource {
  const turns = new Turns();
  const kept: string[] = [];
  return {
    backend: 'embedded',
    environment: () => ({ backend: 'embedded' }),
    cannot: () => undefined,
    async open(needs, probed) {
      const release = await turns.take();
      try {
        const cluster = await startEmbeddedCluster(needs, major);
        const db = await openClusterDatabase(cluster, durability, probed).catch(async (error: unknown) => {
          await cluster.close({ keep: false });
          throw error;
        });
        return {
          db,
          async close(keep) {
            try {
              // The run database goes with the members' directories: nothing to drop first.
              await db.admin.end().catch(() => undefined);
              const lines = await cluster.close({ keep });
              kept.push(...lines);
              return lines;
            } finally {
              release();
            }
          },
        };
      } catch (error: unknown) {
        release();
        throw error;
      }
    },
    close: async () => kept,
  };
}

/**
 * The user's cluster, shared by every cluster case of the run: settled before each, never stopped. Its
 * replication is what its primary says at each case's turn, not at the run's start.
 */
export function sharedCluster(cluster: DatabaseCluster, durability: Durability): ClusterSource {
  const turns = new Turns();
  return {
    backend: cluster.backend,
    environment: () => cluster.environment(),
    cannot: (needs) => cannotCause(cluster, needs),
    async open(needs, probed) {
      const release = await turns.take();
      try {
        await cluster.settle();
        const cannot = otherReplication(cluster.replication, needs);
        if (cannot) {
          release();
          return { cannot };
        }
        const db = await openClusterDatabase(cluster, durability, probed);
        return {
          db,
          async close(keep) {
            try {
              await db.close({ keep });
              return keep ? [`kept database ${db.name} on the ${cluster.backend} cluster`] : [];
            } finally {
              release();
            }
          },
        };
      } catch (error: unknown) {
        release();
        throw error;
      }
    },
    close: () => cluster.close({ keep: false }),
  };
}
