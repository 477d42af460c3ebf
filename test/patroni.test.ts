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
import { connectMember } from '../harness/database/member-connection.ts';
import { memberUrls } from '../harness/database/member-urls.ts';
import { waitUntil } from '../harness/database/poll-until.ts';
import { type PatroniCluster, patroniMissing, startPatroniCluster } from '../scripts/patroni-cluster.ts';
import { runDatabasesLeft, runHandOvers } from './managed-cluster-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const MISSING = patroniMissing();

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
    const { run, report } = await runHandOvers(
      serverUrl,
      ['--cluster', 'patroni', '--cluster-api', cluster.apiUrls.join(',')],
      cluster.clusterUrl,
    );
    expect(report.environment.cluster).toMatchObject({
      backend: 'patroni',
      manager: expect.stringMatching(/^patroni \d/),
      members: 2,
      replication: 'sync',
    });
    expect(run.stdout + run.stderr).not.toContain(new URL(memberUrls(cluster.clusterUrl)[0] ?? '').password);
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
