/**
 * A cluster the user runs (`run --cluster patroni|command`), driven through its manager:
 * the suite starts and stops nothing of it. Its members are the hosts of `--cluster-url`; which one takes
 * writes, and which are standbys, is asked of the members themselves (memberRole), and
 * whether the cluster is whole again before a case is the manager's word. A failover or switchover is the
 * manager's own (its API, its command line, the user's command), awaited until the manager says the
 * candidate leads and the candidate takes writes; the time without a writable member is what the suite's
 * own look at the members saw meanwhile. What the manager cannot do (cut a link, restart an old primary
 * beside the new one, promote a stale standby) makes the scenarios that need it n/a, with the reason.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import { MEMBER_ROLE_SQL, type MemberRoleRow, memberRole } from '../database/member-connection.ts';
import { memberUrls } from '../database/member-urls.ts';
import { waitUntil } from '../database/poll-until.ts';
import type {
  ClusterBackend,
  ClusterCopy,
  ClusterEnvironment,
  ClusterFault,
  ClusterMember,
  DatabaseCluster,
  FaultFacts,
  Replication,
} from './cluster.ts';
import { flushedLsn, onMember, replayedTo, takesWrites } from './replication-state.ts';

/** What a manager does for the suite; each resolves once the manager says it is done. */
export interface ClusterManager {
  backend: Exclude<ClusterBackend, 'embedded'>;
  /** The faults it can cause. */
  faults: readonly ClusterFault[];
  /** `patroni 3.0.2`: the report's environment. */
  describe(): Promise<string>;
  failover(from: ClusterMember, to: ClusterMember): Promise<void>;
  switchover(from: ClusterMember, to: ClusterMember): Promise<void>;
  /**
   * Starts again what the manager's own fault took down (a killed node), as its service manager would:
   * as soon as the hand-over is done, and on the way out.
   */
  rejoin?(): Promise<void>;
  /** Once what `rejoin` started again follows the leader by the manager's word: the final read reads it then. */
  rejoined?(): Promise<void>;
  /** The manager's word that the cluster is whole: a leader up and every other member following it. */
  healthy(members: readonly ClusterMember[]): Promise<boolean>;
}

/** `host:port` of a member's URL: its name in the report, and how a manager's member is matched. */
export function hostOf(url: string): string {
  const parts = /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(url);
  return parts?.[1] ?? url;
}

/** How each member answers now: its role (memberRole; undefined when fenced) and replayed LSN, or undefined. */
async function roleOf(
  member: ClusterMember,
): Promise<{ writable: boolean; standby: boolean; replayed: string } | undefined> {
  return onMember(member.url, async (c) => {
    const role = memberRole((await c.query<MemberRoleRow>(MEMBER_ROLE_SQL)).rows[0]);
    const { rows } = await c.query<{ replayed: string | null }>(
      'SELECT pg_last_wal_replay_lsn()::text AS replayed',
    );
    return {
      writable: role === 'writable',
      standby: role === 'standby',
      replayed: rows[0]?.replayed ?? '0/0',
    };
  }).catch(() => undefined);
}

/** WAL positions compared as pg_lsn does (`16/B374D848`). */
function lsnValue(lsn: string): bigint {
  const [high = '0', low = '0'] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export class ManagedCluster implements DatabaseCluster {
  readonly backend: Exclude<ClusterBackend, 'embedded'>;
  /** Every member seen taking writes during the run: the final read reads each that still answers. */
  private readonly everWritable = new Set<string>();
  private described = '';

  private constructor(
    private readonly manager: ClusterManager,
    readonly members: readonly ClusterMember[],
    /** As the primary said at the last `settle` (or at `open`). */
    public replication: Replication,
    private readonly timeoutMs: number,
  ) {
    this.backend = manager.backend;
  }

  /**
   * The cluster at `url` (every member's host), its replication as its primary says now; `settle` asks
   * again before each case (a user may switch the mode between cases, or a case of theirs may).
   */
  static async open(manager: ClusterManager, url: string, timeoutMs: number): Promise<ManagedCluster> {
    const members = memberUrls(url).map((u) => ({ name: hostOf(u), url: u }));
    const cluster = new ManagedCluster(manager, members, 'async', timeoutMs);
    await cluster.readReplication();
    cluster.described = await manager.describe();
    return cluster;
  }

  /** `sync` when the primary names synchronous standbys (`synchronous_standby_names`), else `async`. */
  private async readReplication(): Promise<void> {
    const primary = await this.primary();
    const names = await onMember(primary.url, (c) =>
      c.query<{ names: string }>("SELECT current_setting('synchronous_standby_names') AS names"),
    );
    this.replication = names.rows[0]?.names.trim() ? 'sync' : 'async';
  }

  can(fault: ClusterFault): boolean {
    return this.manager.faults.includes(fault);
  }

  environment(): ClusterEnvironment {
    return {
      backend: this.backend,
      manager: this.described,
      members: this.members.length,
      replication: this.replication,
    };
  }

  /** The writable member, looked for until one answers (a failover under way) or the run's timeout. */
  async primary(): Promise<ClusterMember> {
    let found: ClusterMember | undefined;
    await waitUntil('a member of the cluster taking writes', this.timeoutMs, async () => {
      for (const member of this.members) {
        if ((await roleOf(member))?.writable) {
          found = member;
          return true;
        }
      }
      return false;
    });
    const primary = found as ClusterMember;
    this.everWritable.add(primary.name);
    return primary;
  }

  /** The members in recovery, the one that has replayed most first (the one a manager would promote). */
  async standbys(): Promise<ClusterMember[]> {
    const seen: { member: ClusterMember; replayed: bigint }[] = [];
    for (const member of this.members) {
      const role = await roleOf(member);
      if (role?.standby) seen.push({ member, replayed: lsnValue(role.replayed) });
    }
    return seen
      .sort((a, b) => (b.replayed > a.replayed ? 1 : b.replayed < a.replayed ? -1 : 0))
      .map((s) => s.member);
  }

  async caughtUp(standby: ClusterMember): Promise<void> {
    const lsn = await flushedLsn((await this.primary()).url);
    await waitUntil(`${standby.name} replaying the primary's WAL up to ${lsn}`, this.timeoutMs, () =>
      replayedTo(standby.url, lsn),
    );
  }

  async partition(): Promise<void> {
    throw new Error(`the ${this.backend} cluster cannot cut a replication link`);
  }

  async heal(): Promise<void> {
    throw new Error(`the ${this.backend} cluster cannot cut a replication link`);
  }

  async failover(to?: ClusterMember): Promise<FaultFacts> {
    return this.handOver(to, (from, target) => this.manager.failover(from, target));
  }

  async switchover(to?: ClusterMember): Promise<FaultFacts> {
    return this.handOver(to, (from, target) => this.manager.switchover(from, target));
  }

  /**
   * Runs the manager's hand-over while looking at the old primary and the candidate: the gap is from the
   * old primary's last answer as writable to the candidate's first.
   */
  private async handOver(
    to: ClusterMember | undefined,
    act: (from: ClusterMember, target: ClusterMember) => Promise<void>,
  ): Promise<FaultFacts> {
    const from = await this.primary();
    const target = to ?? (await this.standbys())[0];
    if (!target) throw new Error(`the ${this.backend} cluster has no standby to hand over to`);
    let lastOld = performance.now();
    let firstNew: number | undefined;
    let acting = true;
    const looking = (async () => {
      while (acting) {
        if (await takesWrites(from.url).catch(() => false)) lastOld = performance.now();
        else if (firstNew === undefined && (await takesWrites(target.url).catch(() => false)))
          firstNew = performance.now();
        // How often the members are looked at: the resolution of the gap measured, nothing ordered by it.
        await nextLook(20);
      }
    })();
    try {
      await act(from, target);
      await waitUntil(
        `${target.name} taking writes after the ${this.backend} hand-over`,
        this.timeoutMs,
        () => takesWrites(target.url),
      );
    } finally {
      acting = false;
      await looking;
    }
    // Once the gap is measured: a node starting again may answer as writable for a moment.
    await this.manager.rejoin?.();
    this.everWritable.add(target.name);
    const answered = firstNew ?? performance.now();
    return { unavailableMs: Math.max(0, Math.round(answered - lastOld)), primary: target.name };
  }

  async restartOldPrimary(): Promise<ClusterMember> {
    throw new Error(`the ${this.backend} cluster cannot restart an old primary beside the new one`);
  }

  /**
   * The member writable now (the authority), then every other member once writable, answering or not: its
   * manager makes it follow (rewound or rebuilt), so what it alone held is gone — a discarded copy. One
   * still being rebuilt is waited for by the final read (copy-reads.ts), never left out.
   */
  async copies(): Promise<ClusterCopy[]> {
    // Before the authority is looked for: a node starting again may answer as writable for a moment.
    await this.manager.rejoined?.();
    const primary = await this.primary();
    const copies: ClusterCopy[] = [{ member: primary.name, url: primary.url, role: 'survivor' }];
    for (const member of this.members) {
      if (member.name === primary.name || !this.everWritable.has(member.name)) continue;
      copies.push({ member: member.name, url: member.url, role: 'discarded' });
    }
    return copies;
  }

  /** Waits on the manager's word that the cluster is whole again, then reads the replication it has. */
  async settle(): Promise<void> {
    await waitUntil(`the ${this.backend} cluster whole again`, this.timeoutMs, () =>
      this.manager.healthy(this.members),
    );
    await this.readReplication();
  }

  /** Nothing of the user's cluster is stopped or removed: it was there before the run and stays. */
  async close(): Promise<string[]> {
    await this.manager.rejoin?.();
    return [];
  }
}
