/** What a reader needs to judge the numbers: versions, the server settings that matter, cores, commit. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { ClientBase } from 'pg';
import type { Capabilities } from './capabilities.ts';

export const REPORTED_SETTINGS = [
  'synchronous_commit',
  'fsync',
  'max_connections',
  'shared_buffers',
] as const;

export interface Environment {
  node: string;
  /** The harness's own version and the PostgreSQL driver's, as installed (absent in older reports). */
  client?: { reservebench: string; pg: string };
  postgres: string;
  settings: Record<string, string>;
  cpus: number;
  commit: string;
  /** `target`: no database of the run's own; a black box driven over HTTP (`run --target`). */
  database: 'embedded' | 'url' | 'target';
  /** What the server let the run do (capabilities.ts); absent for a black box, which has no server of ours. */
  capabilities?: Capabilities;
  /**
   * The cluster the cluster scenarios ran on (`run --cluster`): its backend, and for a cluster the user
   * runs its manager, members and replication; absent when no cluster scenario ran.
   */
  cluster?: ClusterEnvironment;
}

/** Who runs the cluster under test (harness/cluster/, docs/cluster.md). */
export const CLUSTER_BACKENDS = ['embedded', 'patroni', 'pg_auto_failover', 'command'] as const;
export type ClusterBackend = (typeof CLUSTER_BACKENDS)[number];

/** What the report's environment says of the cluster the cluster scenarios ran on. */
export interface ClusterEnvironment {
  backend: ClusterBackend;
  /** The manager and its version, for a cluster the user runs (`patroni 3.0.2`, `pg_auto_failover 2.0`). */
  manager?: string;
  /** A cluster the user runs: its members and its replication, as its primary says. */
  members?: number;
  replication?: 'sync' | 'async';
}

const versionOf = (packageJson: URL): string => {
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string };
  return version ?? 'unknown';
};

export function clientVersions(): NonNullable<Environment['client']> {
  return {
    reservebench: versionOf(new URL('../../package.json', import.meta.url)),
    pg: versionOf(new URL(import.meta.resolve('pg/package.json'))),
  };
}

/** The harness's own commit (short), or `unknown`. */
export function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

export async function readEnvironment(
  db: ClientBase,
  database: Environment['database'],
  capabilities: Capabilities | undefined,
): Promise<Environment> {
  const { rows } = await db.query<{ name: string; setting: string }>(
    'SELECT name, current_setting(name) AS setting FROM unnest($1::text[]) AS name',
    [['server_version', ...REPORTED_SETTINGS]],
  );
  const settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  const { server_version: postgres = 'unknown', ...reported } = settings;
  return {
    node: process.version,
    client: clientVersions(),
    postgres,
    settings: reported,
    cpus: availableParallelism(),
    commit: gitCommit(),
    database,
    ...(capabilities ? { capabilities } : {}),
  };
}
