/**
 * A real Patroni cluster on this machine, for `run --cluster patroni` (docs/cluster.md): one etcd and two
 * Patroni members over Debian's PostgreSQL binaries, all on loopback, in a temporary directory. Needs
 * `apt-get install -y patroni etcd-server` (PostgreSQL 15's binaries come with patroni's dependencies).
 *
 *   npx tsx scripts/patroni-cluster.ts [--async]
 *
 * prints the two values `run` takes and keeps the cluster up until Ctrl-C, then stops every process and
 * removes the directory. The test of the adapter (test/patroni.test.ts) starts it the same way. Ready
 * means Patroni's own word: its REST API shows a leader running and every other member streaming (and,
 * synchronous, one of them the sync standby) — no sleep decides it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../harness/database/embedded-server.ts';
import { waitUntil } from '../harness/database/poll-until.ts';
import {
  clusterFolder,
  type LocalCluster,
  MANAGER_LOOK_MS,
  missingBinaries,
  ownedByServerUser,
  serveUntilInterrupted,
  spawnDetached,
  stopCluster,
} from './local-cluster.ts';

/** Where Debian's binaries are: what the cluster needs, and why it cannot start without them. */
export const PATRONI_BINARIES = {
  patroni: '/usr/bin/patroni',
  etcd: '/usr/bin/etcd',
  postgres: '/usr/lib/postgresql/15/bin/postgres',
} as const;

/** Why a Patroni cluster cannot be started here (a binary missing), or undefined when it can. */
export function patroniMissing(): string | undefined {
  return missingBinaries(PATRONI_BINARIES, 'apt-get install -y patroni etcd-server');
}

export interface PatroniCluster extends LocalCluster {
  /** `--cluster-url`: every member's PostgreSQL, libpq's several-host form (with the password). */
  clusterUrl: string;
  /** `--cluster-api`: every member's REST API. */
  apiUrls: string[];
}

interface Ports {
  etcdClient: number;
  etcdPeer: number;
  members: { pg: number; api: number }[];
}

function memberConfig(dir: string, ports: Ports, i: number, secrets: Record<string, string>, sync: boolean) {
  const { pg, api } = ports.members[i] ?? { pg: 0, api: 0 };
  return JSON.stringify({
    scope: 'reservebench',
    name: `pg${i + 1}`,
    restapi: { listen: `127.0.0.1:${api}`, connect_address: `127.0.0.1:${api}` },
    etcd3: { hosts: `127.0.0.1:${ports.etcdClient}` },
    bootstrap: {
      dcs: {
        ttl: 20,
        loop_wait: 2,
        retry_timeout: 5,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: sync,
        postgresql: {
          use_pg_rewind: true,
          parameters: { max_connections: 300, wal_log_hints: 'on', hot_standby: 'on' },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
      pg_hba: [
        'host replication replicator 127.0.0.1/32 scram-sha-256',
        'host all all 127.0.0.1/32 scram-sha-256',
      ],
    },
    postgresql: {
      listen: `127.0.0.1:${pg}`,
      connect_address: `127.0.0.1:${pg}`,
      data_dir: join(dir, `pg${i + 1}`),
      bin_dir: '/usr/lib/postgresql/15/bin',
      pgpass: join(dir, `pgpass${i + 1}`),
      authentication: {
        superuser: { username: 'postgres', password: secrets.superuser },
        replication: { username: 'replicator', password: secrets.replication },
        rewind: { username: 'rewinder', password: secrets.rewind },
      },
      parameters: { unix_socket_directories: dir },
    },
  });
}

/** Patroni's own word on the cluster: a leader running, every other member streaming (one sync). */
async function ready(apiUrl: string, members: number, sync: boolean): Promise<boolean> {
  const answer = await fetch(`${apiUrl}/cluster`, { signal: AbortSignal.timeout(2_000) }).catch(
    () => undefined,
  );
  if (!answer?.ok) return false;
  const { members: seen = [] } = (await answer.json()) as { members?: { role: string; state: string }[] };
  const leader = seen.some((m) => m.role === 'leader' && m.state === 'running');
  const followers = seen.filter((m) => m.role !== 'leader' && ['running', 'streaming'].includes(m.state));
  const synchronous = !sync || seen.some((m) => m.role === 'sync_standby');
  return seen.length === members && leader && followers.length === members - 1 && synchronous;
}

export async function startPatroniCluster(options: {
  sync: boolean;
  members?: number;
}): Promise<PatroniCluster> {
  const members = options.members ?? 2;
  const dir = clusterFolder('reservebench-patroni-');
  const ports: Ports = {
    etcdClient: await freePort(),
    etcdPeer: await freePort(),
    members: await Promise.all(
      Array.from({ length: members }, async () => ({ pg: await freePort(), api: await freePort() })),
    ),
  };
  const secrets = Object.fromEntries(
    ['superuser', 'replication', 'rewind'].map((k) => [k, randomBytes(12).toString('base64url')]),
  );
  const etcdDir = join(dir, 'etcd');
  mkdirSync(etcdDir, { mode: 0o700 });
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const children = [
    spawnDetached(
      PATRONI_BINARIES.etcd,
      [
        '--name',
        'rb',
        '--data-dir',
        etcdDir,
        '--listen-client-urls',
        client,
        '--advertise-client-urls',
        client,
        '--listen-peer-urls',
        peer,
        '--initial-advertise-peer-urls',
        peer,
        '--initial-cluster',
        `rb=${peer}`,
      ],
      { asServerUser: false },
    ),
  ];
  const dataDirs = Array.from({ length: members }, (_, i) => join(dir, `pg${i + 1}`));
  const stop = () => stopCluster(children, dataDirs, dir);
  try {
    for (let i = 0; i < members; i++) {
      const file = join(dir, `pg${i + 1}.yml`);
      writeFileSync(file, memberConfig(dir, ports, i, secrets, options.sync), { mode: 0o600 });
      ownedByServerUser(file);
      children.push(spawnDetached(PATRONI_BINARIES.patroni, [file], { asServerUser: true }));
    }
    const apiUrls = ports.members.map((m) => `http://127.0.0.1:${m.api}`);
    await waitUntil(
      'the Patroni cluster ready',
      120_000,
      () => ready(apiUrls[0] ?? '', members, options.sync),
      MANAGER_LOOK_MS,
    );
    const hosts = ports.members.map((m) => `127.0.0.1:${m.pg}`).join(',');
    return { dir, clusterUrl: `postgresql://postgres:${secrets.superuser}@${hosts}/postgres`, apiUrls, stop };
  } catch (error: unknown) {
    await stop();
    throw error;
  }
}

async function main(): Promise<void> {
  const missing = patroniMissing();
  if (missing) {
    process.stderr.write(`patroni-cluster: ${missing}\n`);
    process.exit(3);
  }
  const cluster = await startPatroniCluster({ sync: !process.argv.includes('--async') });
  serveUntilInterrupted(
    cluster,
    { RESERVEBENCH_CLUSTER_URL: cluster.clusterUrl },
    `npx reservebench run --cluster patroni --cluster-api ${cluster.apiUrls.join(',')} --scenario failover-sync`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
