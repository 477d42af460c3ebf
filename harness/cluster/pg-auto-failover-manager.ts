/**
 * `run --cluster pg_auto_failover`: pg_auto_failover's monitor (`--cluster-monitor`, its database's URL)
 * as the manager of a cluster the user runs, asked over the monitor's own SQL API — the calls
 * `pg_autoctl show state` and `pg_autoctl perform …` make, so the suite needs no pg_autoctl of its own and
 * runs as any user. A failover and a switchover are both `pgautofailover.perform_promotion(formation,
 * candidate)`: pg_auto_failover has one orchestrated hand-over (`perform switchover` is `perform failover`),
 * and `perform promotion` is that failover aimed at a named node, as the suite names its candidate to
 * Patroni (in a group of two it is `perform_failover` itself). Done when the monitor reports the candidate
 * as primary (`wait_primary` or `primary`, reached and assigned); whole when one node is `primary` — which
 * pg_auto_failover reaches only with its quorum of standbys — and every other `secondary`. A node is
 * matched to a member by host and port. Formation `default`.
 *
 * `--cluster-fault kill` makes a failover a crash instead: kill -9 of the primary's whole node on this
 * machine — its pg_autoctl (every pg_autoctl above its postmaster, so that nothing restarts it) and
 * everything below, postgres included — and no call to the monitor: the failover is the monitor's own,
 * done when it reports the candidate as primary (its health checks must first find the node gone, ≈ 20 s
 * and more by its defaults). As soon as the hand-over is done the node is started again, as its service
 * manager would (`pg_autoctl run`, its own executable, environment and user), and the monitor rejoins it
 * as a standby while the case goes on; the final read waits for the monitor to report it `secondary`, and
 * reads what it alone held then, as a discarded copy. A run that ends first (Ctrl-C, a failure) starts it
 * again on its way out.
 */
import { spawn } from 'node:child_process';
import exitHook from 'async-exit-hook';
import pg from 'pg';
import { waitUntil } from '../database/poll-until.ts';
import type { ClusterMember } from './cluster.ts';
import {
  killAll,
  localPostmaster,
  outermostAncestor,
  processTree,
  type StartedAs,
  startedAs,
} from './local-process-tree.ts';
import { type ClusterManager, hostOf } from './managed-cluster.ts';
import type { PgAutoFailoverFault } from './pg-auto-failover-faults.ts';
import { onMember } from './replication-state.ts';

const FORMATION = 'default';
const ASK_MS = 5_000;

const NODES_SQL = `SELECT nodename, nodehost, nodeport, current_group_state AS reported,
  assigned_group_state AS assigned FROM pgautofailover.current_state($1)`;
const PROMOTE_SQL = 'SELECT pgautofailover.perform_promotion($1, $2)';
const VERSION_SQL = "SELECT extversion FROM pg_extension WHERE extname = 'pgautofailover'";

interface MonitorNode {
  nodename: string;
  nodehost: string;
  nodeport: number;
  reported: string;
  assigned: string;
}

/** A node killed by the suite: its name at the monitor, data directory, and pg_autoctl as it was started. */
interface KilledNode {
  name: string;
  dataDir: string;
  keeper: StartedAs;
}

/**
 * Kill -9 of the node serving `member` on this machine: the outermost pg_autoctl above its postmaster
 * first (so that no supervisor restarts anything), then every process below it.
 */
async function killNode(member: ClusterMember, name: string): Promise<KilledNode> {
  const { rows } = await onMember(member.url, (c) =>
    c.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir"),
  );
  const dataDir = rows[0]?.dir ?? '';
  const postmaster = localPostmaster(dataDir);
  const keeper = outermostAncestor(postmaster, 'pg_autoctl');
  if (keeper === undefined) throw new Error(`no pg_autoctl runs above the postmaster of ${dataDir}`);
  const killed = { name, dataDir, keeper: startedAs(keeper) };
  killAll(processTree(keeper));
  return killed;
}

/** `pg_autoctl run` for a killed node, as its service manager would start it again, left running. */
function startAgain({ dataDir, keeper }: KilledNode): void {
  const child = spawn(keeper.executable, ['run', '--pgdata', dataDir], {
    cwd: keeper.cwd,
    env: keeper.env,
    uid: keeper.uid,
    gid: keeper.gid,
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
}

/** A node that has reached the state the monitor assigned it, one of `states`. */
const settledIn = (node: MonitorNode, states: readonly string[]) =>
  node.reported === node.assigned && states.includes(node.reported);

/** The nodes the suite killed, until started again; then their names, until the monitor has them back. */
class KilledNodes {
  private readonly down: KilledNode[] = [];
  /** Started again, not yet seen `secondary`. */
  readonly rejoining: string[] = [];

  add(node: KilledNode): void {
    this.down.push(node);
  }

  restart(): void {
    for (const node of this.down.splice(0)) {
      startAgain(node);
      this.rejoining.push(node.name);
    }
  }

  /** The monitor has been seen reporting them `secondary`: nothing is rejoining any more. */
  rejoined(): void {
    this.rejoining.length = 0;
  }

  /** Whether the monitor, as `seen`, reports every node started again as `secondary`, reached. */
  followAgain(seen: readonly MonitorNode[]): boolean {
    return this.rejoining.every((name) =>
      seen.some((n) => n.nodename === name && settledIn(n, ['secondary'])),
    );
  }
}

export function pgAutoFailoverManager(
  monitorUrl: string,
  timeoutMs: number,
  fault: PgAutoFailoverFault = 'promotion',
): ClusterManager {
  const ask = async <T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({
      connectionString: monitorUrl,
      application_name: 'reservebench-cluster',
      connectionTimeoutMillis: ASK_MS,
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<T>(sql, values)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const nodes = () => ask<MonitorNode>(NODES_SQL, [FORMATION]);
  const nameOf = async (member: ClusterMember): Promise<string> => {
    const found = (await nodes()).find((n) => `${n.nodehost}:${n.nodeport}` === hostOf(member.url));
    if (!found) throw new Error(`the pg_auto_failover monitor lists no node at ${hostOf(member.url)}`);
    return found.nodename;
  };
  const leads = (candidate: string, why: string) =>
    waitUntil(`the pg_auto_failover monitor reporting ${candidate} as primary${why}`, timeoutMs, async () =>
      (await nodes()).some((n) => n.nodename === candidate && settledIn(n, ['wait_primary', 'primary'])),
    );
  const promote = async (to: ClusterMember): Promise<void> => {
    const candidate = await nameOf(to);
    await ask(PROMOTE_SQL, [FORMATION, candidate]);
    await leads(candidate, '');
  };
  const killed = new KilledNodes();
  // A run that ends before its final read (Ctrl-C, a failure) still leaves no node of the user's down.
  exitHook(() => killed.restart());
  const crash = async (from: ClusterMember, to: ClusterMember): Promise<void> => {
    const [old, candidate] = [await nameOf(from), await nameOf(to)];
    killed.add(await killNode(from, old));
    await leads(candidate, ` after ${old} was killed`);
  };
  return {
    backend: 'pg_auto_failover',
    faults: ['failover', 'switchover'],
    async describe() {
      const [found] = await ask<{ extversion: string }>(VERSION_SQL);
      if (!found) throw new Error('the --cluster-monitor database has no pgautofailover extension');
      const failover = fault === 'kill' ? ", failover: kill -9 of the primary's node" : '';
      return `pg_auto_failover ${found.extversion}${failover}`;
    },
    failover: (from, to) => (fault === 'kill' ? crash(from, to) : promote(to)),
    switchover: (_from, to) => promote(to),
    async rejoin() {
      killed.restart();
    },
    async rejoined() {
      killed.restart();
      if (killed.rejoining.length === 0) return;
      const names = killed.rejoining.join(', ');
      await waitUntil(`the pg_auto_failover monitor reporting ${names} as secondary`, timeoutMs, async () =>
        killed.followAgain(await nodes()),
      );
      killed.rejoined();
    },
    async healthy(members) {
      const seen = await nodes();
      const primaries = seen.filter((n) => settledIn(n, ['primary']));
      const secondaries = seen.filter((n) => settledIn(n, ['secondary']));
      return primaries.length === 1 && secondaries.length === members.length - 1;
    },
  };
}
