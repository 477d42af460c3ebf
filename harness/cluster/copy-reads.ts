/**
 * The final read of a cluster case, generic over the contract: every copy the cluster lists — each member
 * that was writable at some point of the case — is read, none skipped. A member a manager is still
 * rewinding or rebuilding does not answer for a while: its read is tried again, on what the member is seen
 * to do (a refused connection, a database not there yet), until it succeeds or the case's deadline
 * passes. A copy never read by then is named with the reason (`unread`), for the case to fail as not
 * exercised: what only that copy holds would otherwise be lost without a count.
 */
import { withDatabaseName } from '../database/member-urls.ts';
import { pollUntil } from '../database/poll-until.ts';
import type { ClusterCopy } from './cluster.ts';
import type { ClusterRunDatabase } from './cluster-database.ts';

/** One copy as the contract read it. */
export interface ReadCopy<T> extends ClusterCopy {
  read: T;
}

export interface CopyReads<T> {
  /** The copies read, in the cluster's order (the authority first when it answered). */
  read: ReadCopy<T>[];
  /** One line per copy that did not answer by the deadline: which member, and its last error. */
  unread: string[];
}

export interface CopyReadOptions {
  /** How long every copy together may take to answer, from the call. */
  deadlineMs: number;
  /** Told once per copy that did not answer at its first try (what a test waits on, observed). */
  onWaiting?: (copy: ClusterCopy) => void;
}

/** How often a copy that does not answer is tried again: a resolution, nothing ordered by it. */
const RETRY_MS = 50;

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0];

/** `read` of one copy, tried until it answers or `deadline` (performance.now()) passes. */
async function readUntil<T>(
  copy: ClusterCopy,
  deadline: number,
  read: (copy: ClusterCopy) => Promise<T>,
  onWaiting: CopyReadOptions['onWaiting'],
): Promise<{ read: T } | { error: string }> {
  let error = 'no answer';
  let looks = 0;
  const look = async (): Promise<{ read: T } | undefined> => {
    if (looks++ === 1) onWaiting?.(copy);
    try {
      return { read: await read(copy) };
    } catch (failed: unknown) {
      error = reasonOf(failed) ?? error;
      return undefined;
    }
  };
  const timeoutMs = Math.max(0, deadline - performance.now());
  return (await pollUntil(look, { timeoutMs, everyMs: RETRY_MS })) ?? { error };
}

/** Reads every copy with `read`, each waited for under one deadline; those never read are `unread`. */
export async function readEveryCopy<T>(
  copies: readonly ClusterCopy[],
  read: (copy: ClusterCopy) => Promise<T>,
  { deadlineMs, onWaiting }: CopyReadOptions,
): Promise<CopyReads<T>> {
  const deadline = performance.now() + deadlineMs;
  const out: CopyReads<T> = { read: [], unread: [] };
  for (const copy of copies) {
    const got = await readUntil(copy, deadline, read, onWaiting);
    if ('read' in got) out.read.push({ ...copy, read: got.read });
    else
      out.unread.push(
        `${copy.member} (${copy.role}, writable during the case) did not answer within ${deadlineMs} ms, its copy unread: ${got.error}`,
      );
  }
  return out;
}

/**
 * A cluster case's final read: every copy the cluster lists read with `read` (given the copy's URL of the
 * run database), the authority — the member the cluster goes on with, listed first — among them, and the
 * harness's own connection moved to it in `schema`, so the audit that follows reads the same copy. An
 * authority that never answered leaves nothing to judge the case on: that throws, naming why.
 */
export async function readClusterCopies<T>(
  db: ClusterRunDatabase,
  schema: string,
  read: (url: string) => Promise<T>,
  deadlineMs: number,
): Promise<{ authority: T } & CopyReads<T>> {
  const members = await db.cluster.copies();
  const reads = await readEveryCopy(members, (copy) => read(withDatabaseName(copy.url, db.name)), {
    deadlineMs,
  });
  const [authority] = members;
  const [first] = reads.read;
  if (!authority || first?.member !== authority.member)
    throw new Error(
      `the cluster's authority was not read: ${reads.unread[0] ?? 'the cluster has no member'}`,
    );
  await db.reconnect(authority.url);
  await db.admin.query(`SET search_path TO ${schema}`);
  return { authority: first.read, ...reads };
}
