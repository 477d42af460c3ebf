/**
 * `run --cluster`: which cluster the cluster scenarios run on (docs/cluster.md). `embedded` (the default
 * whenever a cluster scenario is named) brings up a primary and standbys of the embedded binaries per case;
 * the others drive a cluster the user runs, given by the URL of its members (`--cluster-url`, libpq's
 * several-host form; also RESERVEBENCH_CLUSTER_URL) and, per backend, the manager to ask. Everything is
 * checked before any case starts: bad input is one line and exit 2.
 */
import { embeddedClusters } from '../cluster/cluster-source.ts';
import { CLUSTER_BACKENDS, type ClusterBackend } from '../database/environment.ts';
import { Errors } from '../errors.ts';
import type { Scenario } from '../scenario/scenario.ts';
import type { SuiteOptions } from '../scenario/suite.ts';
import { shown, single } from './cli-arguments.ts';
import { value } from './command-definition.ts';

export const CLUSTER_OPTIONS = {
  cluster: value(
    `the cluster the cluster scenarios run on: ${CLUSTER_BACKENDS.join(', ')} (default embedded, made per case); without it they sit out the default run`,
  ),
};

export interface ClusterArgs {
  cluster?: unknown;
}

function backendFrom(args: ClusterArgs): ClusterBackend | undefined {
  const text = single('cluster', args.cluster);
  if (text === undefined) return undefined;
  const backend = CLUSTER_BACKENDS.find((b) => b === text);
  if (!backend)
    throw Errors.badInput(`--cluster must be one of ${CLUSTER_BACKENDS.join(', ')}, got ${shown(text)}`);
  return backend;
}

/** Whether the run was told of a cluster: the default run then drives the cluster scenarios too. */
export function clusterGiven(args: ClusterArgs): boolean {
  return backendFrom(args) !== undefined;
}

/**
 * The suite's cluster source for the selected scenarios: the one `--cluster` names, else the embedded
 * one when a cluster scenario is selected; undefined when none is.
 */
export function clusterFrom(args: ClusterArgs, scenarios: readonly Scenario[]): SuiteOptions['cluster'] {
  const backend = backendFrom(args);
  if (!scenarios.some((s) => s.cluster)) return undefined;
  if (backend === undefined || backend === 'embedded') {
    return async ({ major, durability }) => embeddedClusters(major, durability);
  }
  throw Errors.badInput(`--cluster ${backend} is not available yet`);
}
