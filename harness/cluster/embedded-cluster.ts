/**
 * The embedded cluster (`--cluster embedded`, the default for a cluster scenario): a primary and N
 * standbys of the embedded binaries, each a copy of one freshly initialised directory (cluster-template.ts),
 * streaming over a loopback proxy of the suite's own per standby (link-proxy.ts: the partition fault),
 * synchronous (`synchronous_standby_names = 'FIRST 1 (member2)'`) or asynchronous as the scenario says.
 * Its faults are real PostgreSQL operations: an immediate shutdown (SIGQUIT) of the primary, `pg_promote()`
 * of a standby, a fast shutdown (which first sends the standbys every WAL record) for a switchover, the old
 * primary started again on its own directory. One cluster per case, made and removed around it, so no case
 * inherits another's timeline. It shows what PostgreSQL's replication does; it cannot show a disk that
 * lies about fsync or a second machine (docs/cluster.md).
 */
import { appendFileSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../database/embedded-server.ts';
import { waitUntil } from '../database/poll-until.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import { megabytes } from '../database/run-state.ts';
import { serverUser } from '../database/server-user.ts';
import type {
  ClusterCopy,
  ClusterFault,
  ClusterMember,
  ClusterNeeds,
  DatabaseCluster,
  FaultFacts,
  Replication,
} from './cluster.ts';
import { type ClusterTemplate, clusterTemplate } from './cluster-template.ts';
import { type LinkProxy, startLinkProxy } from './link-proxy.ts';
import type { MemberProcess } from './member-process.ts';
import { flushedLsn, onMember, replayedTo, streaming, takesWrites } from './replication-state.ts';

/** One member as the embedded cluster keeps it. */
interface EmbeddedMember extends ClusterMember {
  process: MemberProcess;
  port: number;
  /** A standby's link to the primary it streams from. */
  link: LinkProxy | undefined;
  /** `read-only`: a stopped old primary started again for the final read alone. */
  state: 'primary' | 'standby' | 'stopped' | 'read-only';
  everWritable: boolean;
  /** Which promotion made it the primary (0: it started as one): the latest is the authority. */
  promotion: number;
}

/** Settings on the command line (no secret among them); the conninfo goes in the member's own files. */
const MEMBER_FLAGS = ['-c', 'wal_retrieve_retry_interval=100ms', '-c', 'wal_receiver_status_interval=1s'];

/** Appends settings to the member's postgresql.auto.conf (read at start; a later line wins). */
function configure(member: EmbeddedMember, settings: Record<string, string>): void {
  const lines = Object.entries(settings).map(
    ([name, value]) => `${name} = '${value.replaceAll("'", "''")}'\n`,
  );
  appendFileSync(join(member.process.dataDir, 'postgresql.auto.conf'), lines.join(''));
}

/** Makes the stopped member start as a standby (standby.signal, owned by the server's user). */
function markStandby(member: EmbeddedMember): void {
  const signal = join(member.process.dataDir, 'standby.signal');
  writeFileSync(signal, '');
  const { uid, gid } = serverUser();
  if (uid !== undefined && gid !== undefined) chownSync(signal, uid, gid);
}

function conninfo(template: ClusterTemplate, link: LinkProxy, name: string): string {
  return `host=127.0.0.1 port=${link.port} user=postgres password=${template.password} application_name=${name}`;
}

/** `FIRST 1 (member2)`: commits wait for that standby's flush; '' when asynchronous or it is gone. */
function syncNames(replication: Replication, standby: EmbeddedMember | undefined): string {
  return replication === 'sync' && standby ? `FIRST 1 (${standby.name})` : '';
}

class EmbeddedCluster implements DatabaseCluster {
  readonly backend = 'embedded' as const;
  /** Old primaries a failover stopped, latest last. */
  private readonly stopped: EmbeddedMember[] = [];
  private promotions = 0;

  constructor(
    private readonly template: ClusterTemplate,
    readonly replication: Replication,
    readonly members: EmbeddedMember[],
  ) {}

  can(_fault: ClusterFault): boolean {
    return true;
  }

  environment() {
    return { backend: this.backend, members: this.members.length, replication: this.replication };
  }

  private current(): EmbeddedMember {
    const primary = this.members.find((m) => m.state === 'primary');
    if (!primary) throw new Error('the cluster has no primary');
    return primary;
  }

  async primary(): Promise<ClusterMember> {
    return this.current();
  }

  async standbys(): Promise<ClusterMember[]> {
    return this.members.filter((m) => m.state === 'standby');
  }

  private own(member: ClusterMember): EmbeddedMember {
    const found = this.members.find((m) => m.name === member.name);
    if (!found) throw new Error(`no member ${member.name}`);
    return found;
  }

  async caughtUp(standby: ClusterMember, timeoutMs = 30_000): Promise<void> {
    const lsn = await flushedLsn(this.current().url);
    await waitUntil(`${standby.name} replaying the primary's WAL up to ${lsn}`, timeoutMs, () =>
      replayedTo(standby.url, lsn),
    );
  }

  async partition(standby: ClusterMember): Promise<void> {
    this.own(standby).link?.partition();
  }

  async heal(standby: ClusterMember): Promise<void> {
    this.own(standby).link?.heal();
  }

  /** Starts `member` as a standby of the primary, over a new link. */
  private async follow(member: EmbeddedMember, primary: EmbeddedMember): Promise<void> {
    await member.link?.close();
    member.link = await startLinkProxy({ host: '127.0.0.1', port: primary.port });
    configure(member, {
      primary_conninfo: conninfo(this.template, member.link, member.name),
      synchronous_standby_names: '',
    });
    markStandby(member);
    member.state = 'standby';
  }

  /**
   * Points the running standbys at the new primary. It takes writes alone (asynchronously) until a
   * standby streams from it: one that had WAL it lacks (a stale promotion) never will.
   */
  private async repoint(primary: EmbeddedMember): Promise<void> {
    for (const standby of this.members.filter((m) => m.state === 'standby')) {
      await standby.link?.close();
      standby.link = await startLinkProxy({ host: '127.0.0.1', port: primary.port });
      const info = conninfo(this.template, standby.link, standby.name);
      await onMember(standby.url, async (c) => {
        await c.query(`ALTER SYSTEM SET primary_conninfo = '${info}'`);
        await c.query('SELECT pg_reload_conf()');
      });
    }
  }

  /** Once `standby` streams from `primary` (observed), commits there wait for it, when synchronous. */
  private async syncWith(primary: EmbeddedMember, standby: EmbeddedMember): Promise<void> {
    if (this.replication !== 'sync') return;
    await waitUntil(`${standby.name} streaming from ${primary.name}`, 60_000, () =>
      streaming(primary.url, [standby.name], undefined),
    );
    await onMember(primary.url, async (c) => {
      await c.query(`ALTER SYSTEM SET synchronous_standby_names = '${syncNames(this.replication, standby)}'`);
      await c.query('SELECT pg_reload_conf()');
    });
  }

  /** Promotes `to` and waits for its own word that it takes writes; its old link goes. */
  private async promote(to: EmbeddedMember): Promise<void> {
    await onMember(to.url, (c) => c.query('SELECT pg_promote(true, 60)'));
    await waitUntil(`${to.name} taking writes after pg_promote()`, 60_000, () => takesWrites(to.url));
    await to.link?.close();
    to.link = undefined;
    to.state = 'primary';
    to.everWritable = true;
    this.promotions += 1;
    to.promotion = this.promotions;
  }

  private firstStandby(to: ClusterMember | undefined): EmbeddedMember {
    const target = to ? this.own(to) : this.members.find((m) => m.state === 'standby');
    if (target?.state !== 'standby') throw new Error('no standby to promote');
    return target;
  }

  async failover(to?: ClusterMember): Promise<FaultFacts> {
    const old = this.current();
    const target = this.firstStandby(to);
    await old.process.stop('SIGQUIT');
    const stoppedAt = performance.now();
    old.state = 'stopped';
    this.stopped.push(old);
    await this.promote(target);
    const unavailableMs = Math.round(performance.now() - stoppedAt);
    await this.repoint(target);
    return { unavailableMs, primary: target.name };
  }

  /**
   * A switchover as a manager runs one: the primary's client sessions are ended first (a fast shutdown's
   * first step; a commit waiting there for its standby is then flushed and unanswered), every link heals,
   * the standby replays all the primary wrote, the primary shuts down fast (sending its standbys every WAL
   * record, its shutdown checkpoint included), the standby is promoted, and the old primary follows it.
   */
  async switchover(to?: ClusterMember): Promise<FaultFacts> {
    const old = this.current();
    const target = this.firstStandby(to);
    const stoppingAt = performance.now();
    // Each session gone before the link heals (the timeout form waits for the backend's exit): a commit
    // still waiting for its standby when the link came back would be answered, not cut off.
    await onMember(old.url, (c) =>
      c.query(
        "SELECT count(pg_terminate_backend(pid, 30000)) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      ),
    );
    for (const member of this.members) member.link?.heal();
    await this.caughtUp(target);
    await old.process.stop('SIGINT');
    await this.promote(target);
    const unavailableMs = Math.round(performance.now() - stoppingAt);
    await this.repoint(target);
    await this.follow(old, target);
    await old.process.start(old.port, MEMBER_FLAGS);
    await this.syncWith(target, old);
    return { unavailableMs, primary: target.name };
  }

  async restartOldPrimary(): Promise<ClusterMember> {
    const old = this.stopped.pop();
    if (!old) throw new Error('no old primary to restart: no failover came first');
    // On its own directory, as it was: no standby.signal, so it comes up writable after crash recovery.
    await old.process.start(old.port, MEMBER_FLAGS);
    old.state = 'primary';
    return old;
  }

  /** The authority (the survivor promoted last) first, then the other survivors, then discarded copies. */
  async copies(): Promise<ClusterCopy[]> {
    const copies: (ClusterCopy & { promotion: number })[] = [];
    for (const member of this.members.filter((m) => m.everWritable)) {
      if (member.state === 'stopped') {
        // Read-only, on a port no client was given: what it held when it stopped, and nothing more.
        member.port = await freePort();
        member.url = this.urlOf(member.port);
        await member.process.start(member.port, [...MEMBER_FLAGS, '-c', 'default_transaction_read_only=on']);
        member.state = 'read-only';
      }
      const survivor = member.state === 'primary' && (await takesWrites(member.url));
      copies.push({
        member: member.name,
        url: member.url,
        role: survivor ? 'survivor' : 'discarded',
        promotion: member.promotion,
      });
    }
    const rank = (c: { role: string; promotion: number }) => (c.role === 'survivor' ? 1000 : 0) + c.promotion;
    return copies.sort((a, b) => rank(b) - rank(a)).map(({ promotion: _, ...copy }) => copy);
  }

  async settle(): Promise<void> {}

  urlOf(port: number): string {
    return `postgresql://postgres:${this.template.password}@127.0.0.1:${port}/postgres`;
  }

  async close({ keep }: { keep: boolean }): Promise<string[]> {
    for (const member of this.members) await member.link?.close();
    await Promise.all(this.members.map((m) => m.process.remove({ keep })));
    if (!keep) return [];
    return this.members.map(
      (m) =>
        `kept cluster ${m.name}'s data in ${m.process.dataDir} (${megabytes(m.process.dataDir)}; remove it with: reservebench clean)`,
    );
  }
}

/** Members 1 (the primary) to 1 + `standbys`, copied from the template, configured, not yet started. */
async function makeMembers(template: ClusterTemplate, needs: ClusterNeeds): Promise<EmbeddedMember[]> {
  const members: EmbeddedMember[] = [];
  try {
    for (let i = 0; i <= needs.standbys; i++) {
      const process = await template.copy();
      const port = await freePort();
      const url = `postgresql://postgres:${template.password}@127.0.0.1:${port}/postgres`;
      members.push({
        name: `member${i + 1}`,
        url,
        process,
        port,
        link: undefined,
        state: 'standby',
        everWritable: false,
        promotion: 0,
      });
    }
  } catch (error: unknown) {
    await Promise.all(members.map((m) => m.process.remove({ keep: false })));
    throw error;
  }
  return members;
}

/** Starts the primary, then each standby, and waits for the primary's word that all of them stream. */
async function startMembers(template: ClusterTemplate, needs: ClusterNeeds, members: EmbeddedMember[]) {
  const [primary, ...standbys] = members;
  if (!primary) throw new Error('a cluster needs a primary');
  primary.state = 'primary';
  primary.everWritable = true;
  configure(primary, { synchronous_standby_names: syncNames(needs.replication, standbys[0]) });
  for (const standby of standbys) {
    standby.link = await startLinkProxy({ host: '127.0.0.1', port: primary.port });
    configure(standby, { primary_conninfo: conninfo(template, standby.link, standby.name) });
    markStandby(standby);
  }
  await primary.process.start(primary.port, MEMBER_FLAGS);
  for (const standby of standbys) await standby.process.start(standby.port, MEMBER_FLAGS);
  const sync = needs.replication === 'sync' ? standbys[0]?.name : undefined;
  await waitUntil('every standby streaming from the primary', 60_000, () =>
    streaming(
      primary.url,
      standbys.map((s) => s.name),
      sync,
    ),
  );
}

/** A new embedded cluster for one case; on a failure to start, nothing of it is left. */
export async function startEmbeddedCluster(
  needs: ClusterNeeds,
  major: PostgresMajor,
): Promise<DatabaseCluster> {
  const template = await clusterTemplate(major);
  const members = await makeMembers(template, needs);
  const cluster = new EmbeddedCluster(template, needs.replication, members);
  try {
    await startMembers(template, needs, members);
  } catch (error: unknown) {
    await cluster.close({ keep: false });
    throw error;
  }
  return cluster;
}
