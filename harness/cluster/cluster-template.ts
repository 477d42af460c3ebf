/**
 * The data directory every member of an embedded cluster starts from. The embedded binaries have no
 * `pg_basebackup` (only initdb, pg_ctl, postgres), so a standby is made the other way PostgreSQL allows: a
 * cold copy of the primary's directory while it is stopped, plus `standby.signal` and `primary_conninfo`.
 * A freshly initialised directory, copied before any member starts, is such a copy for every member at
 * once: all share one system identifier and begin at the same checkpoint. initdb runs once per run and
 * major, the slow step; each cluster then copies it, a plain file copy far faster than initdb.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { initialiseWithPassword, newPassword } from '../database/embedded-server.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import { serverUser } from '../database/server-user.ts';
import { MemberProcess } from './member-process.ts';

const run = promisify(execFile);

export interface ClusterTemplate {
  major: PostgresMajor;
  /** The `postgres` binary of the major. */
  binary: string;
  /** The superuser's password, the same on every member (the copies share it). */
  password: string;
  /** A new member's directory: a copy of the template, owned by the server's user. */
  copy(): Promise<MemberProcess>;
}

/** The template of each major, made at its first use in the run and removed with the run's members. */
const templates = new Map<PostgresMajor, Promise<ClusterTemplate>>();

/** A fresh temporary directory, named like the embedded server's so `clean` and a reader know it. */
function memberDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'reservebench-pg-'));
}

async function makeTemplate(major: PostgresMajor): Promise<ClusterTemplate> {
  const dir = memberDirectory();
  // The template is a member that never starts: the same state file and exit path remove it.
  const holder = new MemberProcess(dir, '');
  const password = newPassword();
  const binary = await initialiseWithPassword(major, dir, 0, password).catch(async (error: unknown) => {
    await holder.remove({ keep: false });
    throw error;
  });
  const { uid, gid } = serverUser();
  return {
    major,
    binary,
    password,
    async copy() {
      const target = memberDirectory();
      const member = new MemberProcess(target, binary);
      // `cp -a` keeps the owner and the 0700 PostgreSQL insists on.
      await run('cp', ['-a', `${dir}/.`, target]);
      if (uid !== undefined && gid !== undefined) chownSync(target, uid, gid);
      return member;
    },
  };
}

export function clusterTemplate(major: PostgresMajor): Promise<ClusterTemplate> {
  let made = templates.get(major);
  if (!made) {
    made = makeTemplate(major);
    // A template that failed is not kept for the next cluster to fail on again.
    made.catch(() => templates.delete(major));
    templates.set(major, made);
  }
  return made;
}
