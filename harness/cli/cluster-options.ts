/**
 * `run --cluster`: which cluster the cluster scenarios run on (docs/cluster.md). `embedded` (the default
 * whenever a cluster scenario is named) brings up a primary and standbys of the embedded binaries per case;
 * the others drive a cluster the user runs, given by the URL of its members (`--cluster-url`, libpq's
 * several-host form; else RESERVEBENCH_CLUSTER_URL) and, per backend, the manager to ask: Patroni's REST
 * API (`--cluster-api`), pg_auto_failover's monitor (`--cluster-monitor`), or the user's own commands. Everything is checked before any case starts: bad
 * input is one line and exit 2. The cluster itself is made from these options in cluster-from.ts.
 */

import { PG_AUTO_FAILOVER_FAULTS, type PgAutoFailoverFault } from '../cluster/pg-auto-failover-faults.ts';
import { CLUSTER_BACKENDS, type ClusterBackend } from '../database/environment.ts';
import { memberUrls } from '../database/member-urls.ts';
import { Errors } from '../errors.ts';
import { postgresUrl, shown } from './cli-arguments.ts';
import { choice, parsed, parsedList, text } from './option-types.ts';

const needsCluster = (why: string) => ({ needs: [{ anyOf: ['cluster'], why }] });

/** Every member of a several-host URL a postgres URL; the text returned as given. */
export function readClusterUrl(value: string, label: string): string {
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
