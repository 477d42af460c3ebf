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
 */
import pg from 'pg';
import { waitUntil } from '../database/poll-until.ts';
import type { ClusterMember } from './cluster.ts';
import { type ClusterManager, hostOf } from './managed-cluster.ts';

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

/** A node that has reached the state the monitor assigned it, one of `states`. */
const settledIn = (node: MonitorNode, states: readonly string[]) =>
  node.reported === node.assigned && states.includes(node.reported);

export function pgAutoFailoverManager(monitorUrl: string, timeoutMs: number): ClusterManager {
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
  const promote = async (to: ClusterMember): Promise<void> => {
    const candidate = await nameOf(to);
    await ask(PROMOTE_SQL, [FORMATION, candidate]);
    await waitUntil(`the pg_auto_failover monitor reporting ${candidate} as primary`, timeoutMs, async () =>
      (await nodes()).some((n) => n.nodename === candidate && settledIn(n, ['wait_primary', 'primary'])),
    );
  };
  return {
    backend: 'pg_auto_failover',
    faults: ['failover', 'switchover'],
    async describe() {
      const [found] = await ask<{ extversion: string }>(VERSION_SQL);
      if (!found) throw new Error('the --cluster-monitor database has no pgautofailover extension');
      return `pg_auto_failover ${found.extversion}`;
    },
    failover: (_from, to) => promote(to),
    switchover: (_from, to) => promote(to),
    async healthy(members) {
      const seen = await nodes();
      const primaries = seen.filter((n) => settledIn(n, ['primary']));
      const secondaries = seen.filter((n) => settledIn(n, ['secondary']));
      return primaries.length === 1 && secondaries.length === members.length - 1;
    },
  };
}
