/**
 * Issue 39, a cluster the user runs: one real Patroni cluster (Debian's patroni + etcd-server, two
 * members, synchronous_mode; scripts/patroni-cluster.ts) shared by both backends that drive a user's
 * cluster. Through the Patroni adapter (its REST API): failover-sync and switchover hold for hot-row, the
 * report names the manager, the old leader is read as a discarded copy. Through the user's-commands
 * backend, with `patronictl failover` as the command: failover-sync holds the same way. Both runs drop
 * their run databases from the cluster; the cluster is stopped and its directory removed after. Where the
 * binaries are missing (CI's machine has only Node and npm) the tests are skipped, saying which.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitUntil } from '../harness/cluster/replication-state.ts';
import { connectMember, memberUrls } from '../harness/database/member-connection.ts';
import { type PatroniCluster, patroniMissing, startPatroniCluster } from '../scripts/patroni-cluster.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const MISSING = patroniMissing();

/** Databases the suite made on the cluster and left there (none, after a run that did not --keep). */
async function runDatabasesLeft(url: string): Promise<string[]> {
  // Asked of the primary: a standby may not have replayed the last DROP DATABASE yet.
  const primary = await connectMember({ connectionString: url }, { waitMs: 60_000 });
  try {
    const { rows } = await primary.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'reservebench_%'",
    );
    return rows.map((r) => r.datname);
  } finally {
    await primary.end();
  }
}

/**
 * Waits until the primary names a synchronous standby again: after a switchover Patroni's synchronous mode
 * runs the new primary asynchronously until its standby streams, and a run started then sees (and reports)
 * an asynchronous cluster.
 */
async function untilSynchronous(url: string): Promise<void> {
  await waitUntil('the primary naming a synchronous standby', 120_000, async () => {
    const primary = await connectMember({ connectionString: url }, { waitMs: 60_000 });
    try {
      const { rows } = await primary.query<{ names: string }>(
        "SELECT current_setting('synchronous_standby_names') AS names",
      );
      return (rows[0]?.names.trim() ?? '') !== '';
    } finally {
      await primary.end();
    }
  });
}

describe.skipIf(MISSING)(`a Patroni cluster the user runs${MISSING ? ` (skipped: ${MISSING})` : ''}`, () => {
  let cluster: PatroniCluster;
  beforeAll(async () => {
    cluster = await startPatroniCluster({ sync: true });
  }, 180_000);
  afterAll(async () => {
    const dir = cluster?.dir;
    await cluster?.stop();
    if (dir) expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it('fails over and switches over through its REST API, nothing acknowledged lost', async () => {
    const { run, report } = await runJson(
      serverUrl,
      [
        '--cluster',
        'patroni',
        '--cluster-api',
        cluster.apiUrls.join(','),
        '--scenario',
        'failover-sync,switchover,split-brain',
        '--strategy',
        'hot-row',
      ],
      { RESERVEBENCH_CLUSTER_URL: cluster.clusterUrl },
    );
    expect(report.environment.cluster).toMatchObject({
      backend: 'patroni',
      manager: expect.stringMatching(/^patroni \d/),
      members: 2,
      replication: 'sync',
    });
    for (const id of ['failover-sync/hot-row', 'switchover/hot-row']) {
      const held = measured(report.cases, id);
      expect(held.status, held.boundary).toBe('pass');
      expect(held.invariants).toMatchObject({ lostAcknowledged: 0, oversold: 0 });
      expect(held.copies?.[0]?.role).toBe('survivor');
    }
    // A manager fences its old leader: split brain is not a fault this backend causes.
    const split = report.cases.find((c) => c.id === 'split-brain/hot-row');
    expect(split?.status).toBe('n/a');
    expect(split?.boundary).toMatch(/cannot cause: restart-old-primary/);
    expect(run.stdout + run.stderr).not.toContain(new URL(memberUrls(cluster.clusterUrl)[0] ?? '').password);
    expect(await runDatabasesLeft(cluster.clusterUrl)).toEqual([]);
  }, 300_000);

  it("fails over through the user's own command (patronictl), judged the same way", async () => {
    const config = join(cluster.dir, 'pg1.yml');
    const names = memberUrls(cluster.clusterUrl).map((u, i) => `${new URL(u).host}) c=pg${i + 1};;`);
    const command = `case "$RESERVEBENCH_CANDIDATE" in ${names.join(' ')} esac; patronictl -c ${config} failover --candidate "$c" --force`;
    await untilSynchronous(cluster.clusterUrl);
    const { report } = await runJson(
      serverUrl,
      [
        '--cluster',
        'command',
        '--cluster-failover',
        command,
        '--scenario',
        'failover-sync',
        '--strategy',
        'hot-row',
      ],
      { RESERVEBENCH_CLUSTER_URL: cluster.clusterUrl },
    );
    expect(report.environment.cluster).toMatchObject({ backend: 'command', members: 2, replication: 'sync' });
    const held = measured(report.cases, 'failover-sync/hot-row');
    expect(held.status, held.boundary).toBe('pass');
    expect(held.invariants).toMatchObject({ lostAcknowledged: 0, oversold: 0 });
    expect(await runDatabasesLeft(cluster.clusterUrl)).toEqual([]);
  }, 300_000);
});
