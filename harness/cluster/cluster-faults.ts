/**
 * A cluster case's faults as its script causes them, for any contract: each through `fault` (the case's
 * record of it: a phase where the contract's cases have phases, nothing more where they do not), and
 * after one that moves the primary (failover, switchover, the old primary restarted) the harness's own
 * connection moved to the member writable then, in the case's schema, so every read and the audit that
 * follow are that member's. `until` looks at observed state, never sleeps an order into place.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type { ClusterFaults } from './cluster-context.ts';
import type { ClusterRunDatabase } from './cluster-database.ts';
import { commitMark, committedSince } from './commits-since.ts';

export interface FaultRecord {
  /** The case's schema: the harness's connection is put back in it after a fault. */
  schema: string;
  timeoutMs: number;
  /** Runs one fault as a step of the case's record. */
  fault(label: string, act: () => Promise<void>): Promise<void>;
  /** Told before a fault that moves the primary: a request in flight across it may lose its answer. */
  moving?(): void;
}

export function clusterFaults(db: ClusterRunDatabase, record: FaultRecord): ClusterFaults {
  const { cluster } = db;
  const moved = async <T>(label: string, act: () => Promise<T>): Promise<T> => {
    let result: T | undefined;
    record.moving?.();
    await record.fault(label, async () => {
      result = await act();
      await db.reconnect();
      await db.admin.query(`SET search_path TO ${record.schema}`);
    });
    return result as T;
  };
  return {
    can: (fault) => cluster.can(fault),
    standbys: () => cluster.standbys(),
    caughtUp: (standby) => cluster.caughtUp(standby),
    partition: (standby) => record.fault(`partition of ${standby.name}`, () => cluster.partition(standby)),
    heal: (standby) => record.fault(`heal of ${standby.name}`, () => cluster.heal(standby)),
    failover: (to) => moved('failover', () => cluster.failover(to)),
    switchover: (to) => moved('switchover', () => cluster.switchover(to)),
    restartOldPrimary: () => moved('old primary restarted writable', () => cluster.restartOldPrimary()),
    commitMark: () => commitMark(db.admin),
    committedSince: (mark) => committedSince(db.admin, mark),
    async until(what, seen) {
      const deadline = performance.now() + record.timeoutMs;
      while (!(await seen())) {
        if (performance.now() > deadline) throw new Error(`${what}: not seen within ${record.timeoutMs} ms`);
        // How often the state is looked at: a resolution, nothing ordered by it.
        await nextLook(5);
      }
    },
  };
}
