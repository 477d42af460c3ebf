/**
 * A real pg_auto_failover cluster on this machine, for `run --cluster pg_auto_failover` (docs/cluster.md):
 * a monitor, a primary and a secondary, each a `pg_autoctl` over Debian's PostgreSQL 15 binaries, all on
 * loopback, in a temporary directory (pg_autoctl's configuration, state and pid files too: its XDG folders
 * point there). Needs `apt-get install -y postgresql-15-auto-failover`. Replication is pg_auto_failover's
 * default: one synchronous standby (`number_sync_standbys` 0 with two nodes: `ANY 1 (…)`).
 *
 *   npx tsx scripts/pg-auto-failover-cluster.ts
 *
 * prints the two values `run` takes and keeps the cluster up until Ctrl-C, then stops every process and
 * removes the directory. test/pg-auto-failover.test.ts starts it the same way. Ready means the monitor's
 * own word (`pgautofailover.current_state`): one node `primary`, the other `secondary`, both reached.
 * Authentication is `trust`, for loopback only (pg_autoctl writes the 127.0.0.1 rules): a throwaway
 * cluster for trying the suite, not a deployment.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as nextLook } from 'node:timers/promises';
import { onMember } from '../harness/cluster/replication-state.ts';
import { freePort } from '../harness/database/embedded-server.ts';
import { waitUntil } from '../harness/database/poll-until.ts';
import { processAlive } from '../harness/database/run-state.ts';
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
export const PG_AUTO_FAILOVER_BINARIES = {
  pg_autoctl: '/usr/bin/pg_autoctl',
  pg_ctl: '/usr/lib/postgresql/15/bin/pg_ctl',
  pgautofailover: '/usr/lib/postgresql/15/lib/pgautofailover.so',
} as const;

/** Why a pg_auto_failover cluster cannot be started here (a binary missing), or undefined when it can. */
export function pgAutoFailoverMissing(): string | undefined {
  return missingBinaries(PG_AUTO_FAILOVER_BINARIES, 'apt-get install -y postgresql-15-auto-failover');
}

export interface PgAutoFailoverCluster extends LocalCluster {
  /** `--cluster-url`: every data node's PostgreSQL, libpq's several-host form. */
  clusterUrl: string;
  /** `--cluster-monitor`: the monitor's database. */
  monitorUrl: string;
}

/**
 * The monitor's word on its `nodes` nodes, each having reached the state it was assigned: one alone is
 * `single`; of several, one is `primary` (which needs its synchronous standby) and the others `secondary`.
 */
async function ready(monitorUrl: string, nodes: number): Promise<boolean> {
  const { rows } = await onMember(monitorUrl, (c) =>
    c.query<{ state: string }>(
      `SELECT current_group_state::text AS state FROM pgautofailover.current_state('default')
        WHERE current_group_state = assigned_group_state`,
    ),
  );
  if (nodes === 1) return rows.length === 1 && rows[0]?.state === 'single';
  const primaries = rows.filter((r) => r.state === 'primary').length;
  const secondaries = rows.filter((r) => r.state === 'secondary').length;
  return primaries === 1 && secondaries === nodes - 1;
}

/** `pg_autoctl create … --run` for one node: it initialises (a secondary: from the primary), then runs. */
function createAndRun(
  kind: 'monitor' | 'postgres',
  dir: string,
  name: string,
  port: number,
  monitor?: string,
) {
  const args = [
    'create',
    kind,
    '--pgdata',
    join(dir, name),
    '--pgport',
    String(port),
    '--hostname',
    '127.0.0.1',
    '--listen',
    '127.0.0.1',
    '--auth',
    'trust',
    '--no-ssl',
    '--pgctl',
    PG_AUTO_FAILOVER_BINARIES.pg_ctl,
    ...(monitor ? ['--monitor', monitor, '--name', name] : []),
    '--run',
  ];
  const folders = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'share') };
  return spawnDetached(PG_AUTO_FAILOVER_BINARIES.pg_autoctl, args, {
    asServerUser: true,
    env: { ...folders, XDG_RUNTIME_DIR: join(dir, 'run') },
  });
}

/**
 * Stops every pg_autoctl of the cluster that is not one of the script's children — a node started again
 * after `--cluster-fault kill` — found by its pid file (pg_autoctl keeps it under XDG_RUNTIME_DIR), each
 * seen gone: it stops its own PostgreSQL on SIGTERM.
 */
async function stopKeepersStartedAgain(runDir: string): Promise<void> {
  const pidFiles = (readdirSync(runDir, { recursive: true }) as string[]).filter((f) =>
    f.endsWith('pg_autoctl.pid'),
  );
  for (const file of pidFiles) {
    const pid = Number(readFileSync(join(runDir, file), 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) continue;
    process.kill(pid, 'SIGTERM');
    while (processAlive(pid)) await nextLook(50);
  }
}

export async function startPgAutoFailoverCluster(): Promise<PgAutoFailoverCluster> {
  const dir = clusterFolder('reservebench-pgaf-');
  // pg_autoctl falls back to /tmp for its pid files when XDG_RUNTIME_DIR does not exist.
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  ownedByServerUser(join(dir, 'run'));
  const [monitorPort, ...nodePorts] = await Promise.all([freePort(), freePort(), freePort()]);
  const monitorUrl = `postgresql://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover`;
  const nodes = nodePorts.map((port, i) => ({ name: `node${i + 1}`, port: port as number }));
  const children = [createAndRun('monitor', dir, 'monitor', monitorPort as number)];
  const stop = async () => {
    await stopKeepersStartedAgain(join(dir, 'run')).catch(() => undefined);
    await stopCluster(
      children,
      ['monitor', ...nodes.map((n) => n.name)].map((n) => join(dir, n)),
      dir,
    );
  };
  try {
    const monitorAnswers = async () => {
      await onMember(monitorUrl, (c) => c.query("SELECT pgautofailover.current_state('default')"));
      return true;
    };
    await waitUntil('the pg_auto_failover monitor ready', 60_000, monitorAnswers, MANAGER_LOOK_MS);
    // One node at a time: the first registered is the primary, the next a secondary copied from it.
    for (const [i, node] of nodes.entries()) {
      children.push(createAndRun('postgres', dir, node.name, node.port, monitorUrl));
      const registered = () => ready(monitorUrl, i + 1);
      await waitUntil(`pg_auto_failover's ${node.name} ready`, 120_000, registered, MANAGER_LOOK_MS);
    }
    const hosts = nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
    return { dir, clusterUrl: `postgresql://postgres@${hosts}/postgres`, monitorUrl, stop };
  } catch (error: unknown) {
    await stop();
    throw error;
  }
}

async function main(): Promise<void> {
  const missing = pgAutoFailoverMissing();
  if (missing) {
    process.stderr.write(`pg-auto-failover-cluster: ${missing}\n`);
    process.exit(3);
  }
  const cluster = await startPgAutoFailoverCluster();
  serveUntilInterrupted(
    cluster,
    { RESERVEBENCH_CLUSTER_URL: cluster.clusterUrl },
    `npx reservebench run --cluster pg_auto_failover --cluster-monitor ${cluster.monitorUrl} --scenario failover-sync`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
