/**
 * What the suite looks at to place a fault: the members' own word on replication, read over SQL —
 * `pg_stat_replication` on the primary (which standbys stream, which is synchronous), the primary's
 * flushed WAL position and a standby's replayed one. Each wait looks again until what it waits for is
 * seen, or its deadline passes with a one-line error naming what was not seen (waitUntil).
 */
import pg from 'pg';
import { MEMBER_ROLE_SQL, type MemberRoleRow, memberRole } from '../database/member-connection.ts';

/** A short session on one member (its URL names one host), closed after `work`. */
export async function onMember<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    application_name: 'reservebench-cluster',
    connectionTimeoutMillis: 5_000,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether every one of `names` streams from the primary at `url` (`first` synchronous when `sync`). */
export async function streaming(
  url: string,
  names: readonly string[],
  sync: string | undefined,
): Promise<boolean> {
  const { rows } = await onMember(url, (c) =>
    c.query<{ application_name: string; state: string; sync_state: string }>(
      'SELECT application_name, state, sync_state FROM pg_stat_replication',
    ),
  );
  const streams = (name: string) => rows.some((r) => r.application_name === name && r.state === 'streaming');
  const synchronous =
    sync === undefined || rows.some((r) => r.application_name === sync && r.sync_state === 'sync');
  return names.every(streams) && synchronous;
}

/** The WAL the primary at `url` has written now (a commit of synchronous_commit = off, too, once it is in). */
export async function flushedLsn(url: string): Promise<string> {
  const { rows } = await onMember(url, (c) =>
    c.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn'),
  );
  return rows[0]?.lsn ?? '0/0';
}

/** Whether the standby at `url` has replayed WAL up to `lsn`. */
export async function replayedTo(url: string, lsn: string): Promise<boolean> {
  const { rows } = await onMember(url, (c) =>
    c.query<{ done: boolean }>('SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS done', [
      lsn,
    ]),
  );
  return rows[0]?.done === true;
}

/** Whether the member at `url` takes writes (out of recovery, not read-only: memberRole). */
export async function takesWrites(url: string): Promise<boolean> {
  const { rows } = await onMember(url, (c) => c.query<MemberRoleRow>(MEMBER_ROLE_SQL));
  return memberRole(rows[0]) === 'writable';
}
