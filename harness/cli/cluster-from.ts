/**
 * `run --cluster`'s cluster, from its options (cluster-options.ts) once the run's scenarios are known:
 * the embedded one, or the user's through its manager. Apart from the declarations, which every start
 * reads: this loads the cluster drivers, and PostgreSQL's client with them.
 */
import { embeddedClusters, sharedCluster } from '../cluster/cluster-source.ts';
import { commandManager } from '../cluster/command-manager.ts';
import { type ClusterManager, ManagedCluster } from '../cluster/managed-cluster.ts';
import { patroniManager } from '../cluster/patroni-manager.ts';
import { pgAutoFailoverManager } from '../cluster/pg-auto-failover-manager.ts';
import type { ScenarioBase } from '../contract/contract.ts';
import type { ClusterBackend } from '../database/environment.ts';
import { memberUrls } from '../database/member-urls.ts';
import { Errors } from '../errors.ts';
import type { SuiteOptions } from '../suite/suite.ts';
import { type ClusterArgs, readClusterUrl } from './cluster-options.ts';

/** The manager a cluster the user runs is driven through, or why the options do not give one. */
function managerFor(backend: Exclude<ClusterBackend, 'embedded'>, args: ClusterArgs): ClusterManager {
  const timeoutMs = Math.max(args['timeout-ms'], 120_000);
  if (backend === 'patroni') {
    if (args['cluster-api'].length === 0)
      throw Errors.badInput("--cluster patroni needs --cluster-api: each member's Patroni REST API");
    return patroniManager(args['cluster-api'], timeoutMs);
  }
  if (backend === 'pg_auto_failover') {
    if (!args['cluster-monitor'])
      throw Errors.badInput("--cluster pg_auto_failover needs --cluster-monitor: the monitor's database URL");
    return pgAutoFailoverManager(args['cluster-monitor'], timeoutMs, args['cluster-fault']);
  }
  if (!args['cluster-failover'] && !args['cluster-switchover'])
    throw Errors.badInput('--cluster command needs --cluster-failover or --cluster-switchover (or both)');
  return commandManager(
    {
      ...(args['cluster-failover'] ? { failover: args['cluster-failover'] } : {}),
      ...(args['cluster-switchover'] ? { switchover: args['cluster-switchover'] } : {}),
    },
    timeoutMs,
  );
}

/** The members of the user's cluster: --cluster-url, else RESERVEBENCH_CLUSTER_URL. */
function userClusterUrl(backend: ClusterBackend, args: ClusterArgs): string {
  const fromEnv = process.env.RESERVEBENCH_CLUSTER_URL?.trim();
  const url =
    args['cluster-url'] ?? (fromEnv ? readClusterUrl(fromEnv, 'RESERVEBENCH_CLUSTER_URL') : undefined);
  if (!url)
    throw Errors.badInput(
      `--cluster ${backend} needs --cluster-url (or RESERVEBENCH_CLUSTER_URL): every member`,
    );
  if (memberUrls(url).length < 2)
    throw Errors.badInput(
      `--cluster ${backend}: the cluster URL names one member; a cluster has two or more`,
    );
  return url;
}

/**
 * The suite's cluster source for the selected scenarios: the one `--cluster` names, else the embedded
 * one when a cluster scenario is selected; undefined when none is. The user's cluster is checked here
 * (its options) and reached when the run starts.
 */
export function clusterFrom(args: ClusterArgs, scenarios: readonly ScenarioBase[]): SuiteOptions['cluster'] {
  const backend = args.cluster ?? 'embedded';
  if (backend === 'embedded') {
    return scenarios.some((s) => s.cluster)
      ? async ({ major, durability }) => embeddedClusters(major, durability)
      : undefined;
  }
  const manager = managerFor(backend, args);
  const url = userClusterUrl(backend, args);
  if (!scenarios.some((s) => s.cluster)) return undefined;
  const timeoutMs = Math.max(args['timeout-ms'], 120_000);
  return async ({ durability }) =>
    sharedCluster(await ManagedCluster.open(manager, url, timeoutMs), durability);
}
