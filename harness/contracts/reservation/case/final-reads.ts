/**
 * Where a case's final read reads: a black box through its API; a database through the design's
 * `status` and `remaining` on a fresh connection; a cluster on every member that was writable at some
 * point of the case, each its own copy (verdict/copies.ts counts across them), each waited for until it
 * answers (cluster/copy-reads.ts) — one that never does by the case's deadline is named in `unread`, and
 * the case fails as not exercised. The authority's read comes first; the audit reads the same copy.
 */
import type { ClusterRunDatabase } from '../../../cluster/cluster-database.ts';
import { readClusterCopies } from '../../../cluster/copy-reads.ts';
import type { CopyRead } from '../verdict/copies.ts';
import { type FinalRead, readBack } from '../verdict/final-read.ts';
import type { CaseOnSchema } from './case-spec.ts';

export async function finalReads(
  on: CaseOnSchema,
  keys: readonly string[],
  skus: readonly string[],
): Promise<{ read: FinalRead; copies?: CopyRead[]; unread?: string[] }> {
  const { spec, db, schema } = on;
  const { strategy } = spec.ref;
  if (spec.blackBox) return { read: await spec.blackBox.finalRead(keys, skus) };
  const readOn = (connectionString: string) => readBack({ connectionString, schema }, strategy, keys, skus);
  if (!('cluster' in db)) return { read: await readOn(db.connectionString) };
  const reads = await readClusterCopies(db as ClusterRunDatabase, schema, readOn, on.settings.timeoutMs);
  return { read: reads.authority, copies: reads.read, unread: reads.unread };
}
