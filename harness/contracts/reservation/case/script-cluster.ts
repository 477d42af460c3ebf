/**
 * A script's cluster (a cluster scenario's nemesis, in Jepsen's shape: clients, a fault schedule, heal,
 * final read): the faults the database under test can be put through, each a step of the case's phases,
 * and the looks at the cluster that place them — the commits the primary has made since a standby's link
 * was cut and those waiting there for a standby (the servers' word, no design's: a design that answered
 * without its standby must not be trusted to say so), and what each side of a split brain has sold (read
 * through the design, outside the case's history: the nemesis's own look is no client's read). The faults
 * themselves are every contract's (cluster/cluster-faults.ts), each a step of the case's phases.
 */
import type { ClusterRunDatabase } from '../../../cluster/cluster-database.ts';
import { clusterFaults } from '../../../cluster/cluster-faults.ts';
import { onMember } from '../../../cluster/replication-state.ts';
import { connectMember } from '../../../database/member-connection.ts';
import { withDatabaseName } from '../../../database/member-urls.ts';
import { sessionOptions } from '../../../driver/case-connection.ts';
import type { ClusterContext } from './cluster-context.ts';
import type { ScriptScope } from './script-scope.ts';

const NO_CLUSTER = 'this scenario reaches for a cluster, and the case has none (declare `cluster` in it)';

export function scriptCluster(scope: ScriptScope): { cluster: ClusterContext } {
  const { db, connection, record, timeoutMs, params } = scope;
  const clustered = 'cluster' in db ? (db as ClusterRunDatabase) : undefined;
  const faults = clustered
    ? clusterFaults(clustered, {
        schema: connection.schema,
        timeoutMs,
        fault: (l, act) => record.fault(l, act),
      })
    : undefined;
  const cluster = () => {
    if (!faults) throw new Error(NO_CLUSTER);
    return faults;
  };
  return {
    cluster: {
      can: (fault) => faults?.can(fault) === true,
      standbys: () => cluster().standbys(),
      caughtUp: (standby) => cluster().caughtUp(standby),
      partition: (standby) => cluster().partition(standby),
      heal: (standby) => cluster().heal(standby),
      failover: (to) => cluster().failover(to),
      switchover: (to) => cluster().switchover(to),
      restartOldPrimary: () => cluster().restartOldPrimary(),
      until: (what, seen) => cluster().until(what, seen),
      commitMark: () => cluster().commitMark(),
      committedSince: (mark) => cluster().committedSince(mark),
      availableOn: (member) =>
        onMember(withDatabaseName(member.url, db.name), async (client) => {
          await client.query(`SET search_path TO ${connection.schema}`);
          let sum = 0;
          for (const { sku } of params.stock) sum += await scope.ref.strategy.remaining(client, sku);
          return sum;
        }),
      async commitsWaitingOnStandby() {
        const { rows } = await db.admin.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND datname = current_database()",
        );
        return rows[0]?.n ?? 0;
      },
      async statusOnStandby(keys) {
        const standby = await connectMember(
          {
            connectionString: connection.connectionString,
            application_name: 'reservebench-standby-reads',
            options: sessionOptions(connection),
          },
          { role: 'standby', waitMs: timeoutMs },
        );
        try {
          const answers: string[] = [];
          for (const key of keys) {
            const read = () => scope.ref.strategy.status(standby, key);
            answers.push(await record.read({ what: 'status', target: key }, read, 'standby'));
          }
          return answers;
        } finally {
          await standby.end().catch(() => undefined);
        }
      },
    },
  };
}
