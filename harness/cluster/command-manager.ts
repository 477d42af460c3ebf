/**
 * `run --cluster command`: a cluster the user runs under any manager (a cloud's, repmgr, their own
 * scripts), given by the URL of its members and the user's commands, as `--target-restart` is for a
 * service. `--cluster-failover` and `--cluster-switchover` run through `sh -c` with RESERVEBENCH_PRIMARY
 * and RESERVEBENCH_CANDIDATE (each member's host:port) in their environment; the suite then waits until the
 * candidate takes writes. A fault without its command is one the cluster cannot cause (its scenarios n/a).
 * With no manager to ask, the cluster is whole when one member takes writes and every other streams from
 * it (`pg_stat_replication`).
 */

import type { ClusterFault, ClusterMember } from './cluster.ts';
import { runHook } from './hook-command.ts';
import { type ClusterManager, hostOf } from './managed-cluster.ts';
import { onMember, takesWrites } from './replication-state.ts';

export interface ClusterCommands {
  failover?: string;
  switchover?: string;
}

function environment(from: ClusterMember, to: ClusterMember): NodeJS.ProcessEnv {
  return { RESERVEBENCH_PRIMARY: hostOf(from.url), RESERVEBENCH_CANDIDATE: hostOf(to.url) };
}

/** One member writable and every other streaming from it, by the members' own word. */
async function whole(members: readonly ClusterMember[]): Promise<boolean> {
  for (const member of members) {
    if (!(await takesWrites(member.url).catch(() => false))) continue;
    const { rows } = await onMember(member.url, (c) =>
      c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'"),
    );
    return (rows[0]?.n ?? 0) >= members.length - 1;
  }
  return false;
}

export function commandManager(commands: ClusterCommands, timeoutMs: number): ClusterManager {
  const faults: ClusterFault[] = [];
  if (commands.failover) faults.push('failover');
  if (commands.switchover) faults.push('switchover');
  const run = (option: string, command: string | undefined, from: ClusterMember, to: ClusterMember) => {
    if (!command) throw new Error(`the command cluster has no ${option}`);
    return runHook(option, command, environment(from, to), timeoutMs);
  };
  return {
    backend: 'command',
    faults,
    describe: async () => 'the user’s commands',
    failover: (from, to) => run('--cluster-failover', commands.failover, from, to),
    switchover: (from, to) => run('--cluster-switchover', commands.switchover, from, to),
    healthy: whole,
  };
}
