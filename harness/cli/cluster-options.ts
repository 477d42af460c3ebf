/**
 * `run --cluster`: which cluster the cluster scenarios run on (docs/cluster.md). `embedded` (the default
 * whenever a cluster scenario is named) brings up a primary and standbys of the embedded binaries per case;
 * the others drive a cluster the user runs, given by the URL of its members (`--cluster-url`, libpq's
 * several-host form; else RESERVEBENCH_CLUSTER_URL) and, per backend, the manager to ask: Patroni's REST
 * API (`--cluster-api`), pg_auto_failover's monitor (`--cluster-monitor`), or the user's own commands. Everything is checked before any case starts: bad
 * input is one line and exit 2.
 */

import { embeddedClusters, sharedCluster } from '../cluster/cluster-source.ts';
import { commandManager } from '../cluster/command-manager.ts';
import { type ClusterManager, ManagedCluster } from '../cluster/managed-cluster.ts';
import { patroniManager } from '../cluster/patroni-manager.ts';
import {
  PG_AUTO_FAILOVER_FAULTS,
  type PgAutoFailoverFault,
  pgAutoFailoverManager,
} from '../cluster/pg-auto-failover-manager.ts';
import type { ScenarioBase } from '../contract/contract.ts';
import { CLUSTER_BACKENDS, type ClusterBackend } from '../database/environment.ts';
import { memberUrls } from '../database/member-connection.ts';
import { Errors } from '../errors.ts';
import type { SuiteOptions } from '../suite/suite.ts';
import { postgresUrl, shown } from './cli-arguments.ts';
import { choice, parsed, parsedList, text } from './option-types.ts';

const needsCluster = (why: string) => ({ needs: [{ anyOf: ['cluster'], why }] });

/** Every member of a several-host URL a postgres URL; the text returned as given. */
function readClusterUrl(value: string, label: string): string {
  for (const member of memberUrls(value)) postgresUrl(label, member);
  return value;
}

/** A manager's base URL: http(s), without a trailing slash. */
function readApiUrl(value: string, label: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw Errors.badInput(`${label} must be http:// or https:// base URLs, got ${shown(value)}`);
  return url.toString().replace(/\/+$/, '');
}

export const CLUSTER_OPTIONS = {
  cluster: choice('the cluster the cluster scenarios run on', CLUSTER_BACKENDS, {
    absent: 'embedded for a cluster scenario named; the default run leaves them out',
  }),
  'cluster-url': parsed("every member of the user's cluster, libpq's several-host form (h1:p1,h2:p2)", {
    form: 'URL',
    absent: 'RESERVEBENCH_CLUSTER_URL',
    read: readClusterUrl,
    unrecorded: 'its password; give it again, or RESERVEBENCH_CLUSTER_URL',
    ...needsCluster('it names the members of a cluster the user runs'),
  }),
  'cluster-api': parsedList("--cluster patroni: each member's Patroni REST API", {
    form: 'URL,…',
    several: 'list',
    read: readApiUrl,
    ...needsCluster('it is the manager of a patroni cluster'),
  }),
  'cluster-monitor': parsed("--cluster pg_auto_failover: the monitor's database (pg_autoctl show uri)", {
    form: 'URL',
    read: (value, label) => postgresUrl(label, value),
    unrecorded: 'a password it may carry; give it again',
    ...needsCluster('it is the manager of a pg_auto_failover cluster'),
  }),
  'cluster-fault': choice(
    "--cluster pg_auto_failover: a failover is the monitor's promotion, or kill -9 of the primary's node (its pg_autoctl and postgres, on this machine) failed over by the monitor itself",
    PG_AUTO_FAILOVER_FAULTS,
    { default: 'promotion', ...needsCluster('it is a fault of a pg_auto_failover cluster') },
  ),
  'cluster-failover': text(
    '--cluster command: fails the primary RESERVEBENCH_PRIMARY over to RESERVEBENCH_CANDIDATE (host:port)',
    { form: "'cmd'", blank: 'must be a command', ...needsCluster('it is a fault of a command cluster') },
  ),
  'cluster-switchover': text(
    '--cluster command: hands RESERVEBENCH_PRIMARY over to RESERVEBENCH_CANDIDATE without loss',
    { form: "'cmd'", blank: 'must be a command', ...needsCluster('it is a fault of a command cluster') },
  ),
};

export interface ClusterArgs {
  cluster: ClusterBackend | undefined;
  'cluster-url': string | undefined;
  'cluster-api': readonly string[];
  'cluster-monitor': string | undefined;
  'cluster-fault': PgAutoFailoverFault;
  'cluster-failover': string | undefined;
  'cluster-switchover': string | undefined;
  'timeout-ms': number;
}

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
