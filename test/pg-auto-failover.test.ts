/**
 * Issue 39, a cluster the user runs under pg_auto_failover: one real cluster (Debian's
 * postgresql-15-auto-failover: a monitor, a primary and a synchronous secondary;
 * scripts/pg-auto-failover-cluster.ts) for the whole file. Through the adapter (the monitor's SQL API):
 * failover-sync and switchover hold for hot-row, the report names the manager and the time without a
 * writable primary, the member writable at the end is the survivor, split brain is n/a. The run drops its
 * databases; the cluster is stopped and its directory removed after. Where the binaries are missing (CI's
 * machine has only Node and npm) the cluster's tests are skipped, saying which.
 *
 * What the adapter needs of the harness runs everywhere, on the shared test server: a member out of
 * recovery but read-only — pg_auto_failover's fence on a standby it is promoting — is not writable.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { takesWrites } from '../harness/cluster/replication-state.ts';
import { connectMember, memberUrls, withDatabaseName } from '../harness/database/member-connection.ts';
import {
  type PgAutoFailoverCluster,
  pgAutoFailoverMissing,
  startPgAutoFailoverCluster,
} from '../scripts/pg-auto-failover-cluster.ts';
import { runHandOvers } from './managed-cluster-run.ts';

const serverUrl = inject('serverUrl');
const MISSING = pgAutoFailoverMissing();

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
  },
);
