/**
 * Issue 39, a cluster the user runs, judged on what it is at each case: one embedded cluster (a primary
 * and a synchronous standby) for the whole file, driven through the managed-cluster adapter as a manager
 * would drive it (its failover is the embedded one's). The final read waits for every member that was
 * ever writable — a demoted old primary that does not answer yet is waited for and read once it does, and
 * one that never answers by the deadline is named, never left out — and each case reads the replication
 * mode again, so a cluster switched from sync to async between cases runs each on the mode it had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterCopy, ClusterMember, DatabaseCluster } from '../harness/cluster/cluster.ts';
import { sharedCluster } from '../harness/cluster/cluster-source.ts';
import { readEveryCopy } from '../harness/cluster/copy-reads.ts';
import { startEmbeddedCluster } from '../harness/cluster/embedded-cluster.ts';
import { type ClusterManager, ManagedCluster } from '../harness/cluster/managed-cluster.ts';
import { onMember } from '../harness/cluster/replication-state.ts';
import { clusterUrl } from '../harness/database/member-urls.ts';
import { waitUntil } from '../harness/database/poll-until.ts';
import { DEFAULT_POSTGRES } from '../harness/database/postgres-versions.ts';
import { judge, notExercised } from '../harness/verdict/judgement.ts';

const NEEDS = { standbys: 1, faults: ['failover' as const] };

/** The embedded cluster's own faults, as the manager of a cluster the suite is told about by URL. */
function managerOf(embedded: DatabaseCluster): ClusterManager {
  const own = (member: ClusterMember) => {
    const found = embedded.members.find((m) => m.url === member.url);
    if (!found) throw new Error(`no embedded member at ${member.name}`);
    return found;
  };
  return {
    backend: 'command',
    faults: ['failover'],
    describe: async () => 'the embedded cluster as its own manager',
    failover: async (_from, to) => void (await embedded.failover(own(to))),
    switchover: async (_from, to) => void (await embedded.switchover(own(to))),
    healthy: async (members) => (await embedded.standbys()).length === members.length - 1,
  };
}

/** The primary's synchronous_standby_names set to `names`, seen by a new session (reload is asynchronous). */
async function setSyncNames(primary: string, names: string): Promise<void> {
  await onMember(primary, async (c) => {
    await c.query(`ALTER SYSTEM SET synchronous_standby_names = '${names}'`);
    await c.query('SELECT pg_reload_conf()');
  });
  await waitUntil(`synchronous_standby_names = '${names}'`, 30_000, async () => {
    const { rows } = await onMember(primary, (c) =>
      c.query<{ names: string }>("SELECT current_setting('synchronous_standby_names') AS names"),
    );
    return rows[0]?.names === names;
  });
}

/** The row count of the table `held` on a copy: what only that copy may hold. */
const heldOn = (copy: ClusterCopy) =>
  onMember(
    copy.url,
    async (c) => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM held')).rows[0]?.n,
  );

describe('a managed cluster over an embedded one: copies and replication per case', () => {
  let embedded: DatabaseCluster;
  let managed: ManagedCluster;
  beforeAll(async () => {
    embedded = await startEmbeddedCluster({ ...NEEDS, replication: 'sync' }, DEFAULT_POSTGRES);
    managed = await ManagedCluster.open(
      managerOf(embedded),
      clusterUrl(embedded.members.map((m) => m.url)),
      60_000,
    );
  }, 120_000);
  afterAll(async () => {
    await embedded?.close({ keep: false });
  }, 60_000);

  it('reads the replication mode at each case, not once per run', async () => {
    expect(managed.replication).toBe('sync');
    const source = sharedCluster(managed, 'on');
    expect(await source.open({ ...NEEDS, replication: 'async' }, undefined)).toEqual({
      cannot: 'the cluster replicates synchronously; the scenario needs asynchronous replication',
    });
    await setSyncNames((await managed.primary()).url, '');
    const opened = await source.open({ ...NEEDS, replication: 'async' }, undefined);
    expect('db' in opened).toBe(true);
    if ('db' in opened) await opened.close(false);
    expect(await source.open({ ...NEEDS, replication: 'sync' }, undefined)).toEqual({
      cannot: 'the cluster replicates asynchronously; the scenario needs synchronous replication',
    });
    await setSyncNames((await managed.primary()).url, `FIRST 1 (${embedded.members[1]?.name})`);
  }, 120_000);

  it('waits for a demoted old primary to answer, and names one that never does', async () => {
    const primary = await managed.primary();
    await onMember(primary.url, async (c) => {
      await c.query('CREATE TABLE held (k int)');
      await c.query('INSERT INTO held SELECT generate_series(1, 3)');
    });
    // Replayed on the standby, observed: what it holds does not hang on when a reload reaches the walsender.
    const [standby] = await managed.standbys();
    if (!standby) throw new Error('no standby');
    await managed.caughtUp(standby);
    await managed.failover(standby);
    const copies = await managed.copies();
    expect(copies.map((c) => c.role)).toEqual(['survivor', 'discarded']);
    expect(copies[1]?.member).toBe(primary.name);

    // The old primary is down (its immediate shutdown): never answering within the deadline, it is named.
    const short = await readEveryCopy(copies, heldOn, { deadlineMs: 1_000 });
    expect(short.read.map((c) => [c.member, c.read])).toEqual([[copies[0]?.member, 3]]);
    expect(short.unread).toHaveLength(1);
    expect(short.unread[0]).toMatch(
      new RegExp(`^${primary.name} \\(discarded, writable during the case\\) did not answer within 1000 ms`),
    );
    const verdict = judge({ id: 'hot-row' }, 'hold', 'failover-sync', notExercised(short.unread), () => '');
    expect(verdict.status).toBe('fail');
    expect(verdict.boundary).toMatch(/^not exercised: .* did not answer within 1000 ms/);

    // Waited for: once the read is seen waiting on it, the old primary comes back, and is read.
    let waiting: (copy: ClusterCopy) => void = () => undefined;
    const seenWaiting = new Promise<ClusterCopy>((resolve) => {
      waiting = resolve;
    });
    const reading = readEveryCopy(copies, heldOn, { deadlineMs: 60_000, onWaiting: waiting });
    expect((await seenWaiting).member).toBe(primary.name);
    await embedded.restartOldPrimary();
    const all = await reading;
    expect(all.unread).toEqual([]);
    expect(all.read.map((c) => [c.role, c.read])).toEqual([
      ['survivor', 3],
      ['discarded', 3],
    ]);
  }, 180_000);
});
