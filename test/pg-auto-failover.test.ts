/**
 * Issue 39, a cluster the user runs under pg_auto_failover: one real cluster (Debian's
 * postgresql-15-auto-failover: a monitor, a primary and a synchronous secondary;
 * scripts/pg-auto-failover-cluster.ts) for the whole file. Through the adapter (the monitor's SQL API):
 * failover-sync and switchover hold for hot-row, the report names the manager and the time without a
 * writable primary, the member writable at the end is the survivor, split brain is n/a. Then a crash:
 * `--cluster-fault kill` kills the primary's node (pg_autoctl and postgres, kill -9) and the monitor fails
 * over by itself; failover-sync holds, the killed node is started again and rejoins as a standby. The run
 * drops its databases; the cluster is stopped after, its directory removed and no process of it left. Where the binaries are missing (CI's
 * machine has only Node and npm) the cluster's tests are skipped, saying which.
 *
 * What the adapter needs of the harness runs everywhere, on the shared test server: a member out of
 * recovery but read-only — pg_auto_failover's fence on a standby it is promoting — is not writable.
 */
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { takesWrites } from '../harness/cluster/replication-state.ts';
import { connectMember } from '../harness/database/member-connection.ts';
import { memberUrls, withDatabaseName } from '../harness/database/member-urls.ts';
import {
  type PgAutoFailoverCluster,
  pgAutoFailoverMissing,
  startPgAutoFailoverCluster,
} from '../scripts/pg-auto-failover-cluster.ts';
import { runDatabasesLeft, runHandOvers } from './managed-cluster-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const MISSING = pgAutoFailoverMissing();

/** Processes working in `dir` (a postmaster works in its data directory): none once a cluster is stopped. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('a member out of recovery but read-only (a fenced, promoted standby)', () => {
  const database = 'reservebench_fenced_member';
  const admin = () => connectMember({ connectionString: serverUrl });
  beforeAll(async () => {
    const client = await admin();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${database}`);
      await client.query(`CREATE DATABASE ${database}`);
      await client.query(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    const client = await admin();
    await client.query(`DROP DATABASE IF EXISTS ${database}`).finally(() => client.end());
  });

  it('is neither the writable member nor a standby, where the same server writable is', async () => {
    const fenced = withDatabaseName(serverUrl, database);
    expect(await takesWrites(fenced)).toBe(false);
    expect(await takesWrites(serverUrl)).toBe(true);
    // Two "members", both the fenced database: no session may take either as writable, or as a standby.
    const twice = fenced.replace(/@([^/]*)\//, (_all, host: string) => `@${host},${host}/`);
    expect(memberUrls(twice)).toHaveLength(2);
    await expect(connectMember({ connectionString: twice })).rejects.toThrow(/no writable member/);
    await expect(connectMember({ connectionString: twice }, { role: 'standby' })).rejects.toThrow(
      /no standby member/,
    );
  });
});

describe.skipIf(MISSING)(
  `a pg_auto_failover cluster the user runs${MISSING ? ` (skipped: ${MISSING})` : ''}`,
  () => {
    let cluster: PgAutoFailoverCluster;
    beforeAll(async () => {
      cluster = await startPgAutoFailoverCluster();
    }, 180_000);
    afterAll(async () => {
      const dir = cluster?.dir;
      await cluster?.stop();
      if (dir) expect(existsSync(dir)).toBe(false);
      if (dir) expect(processesIn(dir)).toEqual([]);
    }, 60_000);

    it('fails over and switches over through its monitor, nothing acknowledged lost', async () => {
      const { report } = await runHandOvers(
        serverUrl,
        ['--cluster', 'pg_auto_failover', '--cluster-monitor', cluster.monitorUrl],
        cluster.clusterUrl,
      );
      expect(report.environment.cluster).toMatchObject({
        backend: 'pg_auto_failover',
        manager: expect.stringMatching(/^pg_auto_failover \d/),
        members: 2,
        replication: 'sync',
      });
    }, 300_000);

    it('fails over by itself after kill -9 of the primary node, which rejoins; nothing lost', async () => {
      const { report } = await runJson(
        serverUrl,
        [
          ...['--cluster', 'pg_auto_failover', '--cluster-monitor', cluster.monitorUrl],
          ...['--cluster-fault', 'kill', '--scenario', 'failover-sync', '--strategy', 'hot-row'],
        ],
        { RESERVEBENCH_CLUSTER_URL: cluster.clusterUrl },
      );
      const killed = measured(report.cases, 'failover-sync/hot-row');
      expect(killed.status, killed.boundary).toBe('pass');
      expect(killed.invariants).toMatchObject({ lostAcknowledged: 0, oversold: 0 });
      expect(killed.outcomes).toMatchObject({ HELD: 40 });
      // The killed node was read as a discarded copy: started again, it answered.
      expect(killed.copies?.map((c) => c.role)).toEqual(['survivor', 'discarded']);
      expect(killed.observations?.unavailableMs).toBeGreaterThan(0);
      expect(await runDatabasesLeft(cluster.clusterUrl)).toEqual([]);
    }, 300_000);
  },
);
