/**
 * Where a case's final read reads: a black box through its API; a database through the design's
 * `status` and `remaining` on a fresh connection; a cluster on every member that was writable at some
 * point of the case, each its own copy (verdict/copies.ts counts across them). The authority —
 * the member the cluster goes on with — comes first, and the harness's own connection moves to it, so the
 * audit that follows reads the same copy.
 */
import type { ClusterRunDatabase } from '../../../cluster/cluster-database.ts';
import { withDatabaseName } from '../../../database/member-connection.ts';
import type { CopyRead } from '../verdict/copies.ts';
import { type FinalRead, readBack } from '../verdict/final-read.ts';
import type { CaseOnSchema } from './case-spec.ts';

export async function finalReads(
  on: CaseOnSchema,
  keys: readonly string[],
  skus: readonly string[],
): Promise<{ read: FinalRead; copies?: CopyRead[] }> {
  const { spec, db, schema } = on;
  const { strategy } = spec.ref;
  if (spec.blackBox) return { read: await spec.blackBox.finalRead(keys, skus) };
  if (!('cluster' in db)) {
    return { read: await readBack({ connectionString: db.connectionString, schema }, strategy, keys, skus) };
  }
  const clustered = db as ClusterRunDatabase;
  const members = await clustered.cluster.copies();
  const copies: CopyRead[] = [];
  for (const copy of members) {
    const connection = { connectionString: withDatabaseName(copy.url, db.name), schema };
    copies.push({
      member: copy.member,
      role: copy.role,
      read: await readBack(connection, strategy, keys, skus),
    });
  }
  const [authority] = members;
  const [read] = copies;
  if (!authority || !read) throw new Error('the cluster has no member to read');
  await clustered.reconnect(authority.url);
  await db.admin.query(`SET search_path TO ${schema}`);
  return { read: read.read, copies };
}
