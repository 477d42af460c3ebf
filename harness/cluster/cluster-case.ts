/**
 * One case of a cluster scenario, for any contract: on a cluster of its own (or the user's, its turn come),
 * with a run database there; n/a with the reason where the run has no cluster or its cluster cannot give
 * what the scenario needs (its shape, its faults, its replication at the case's turn). What a failed case
 * keeps (its schema, the members' data) goes with the cluster, said where the run lists what it kept.
 */
import type { Capabilities } from '../database/capabilities.ts';
import type { ClusterNeeds } from './cluster.ts';
import type { ClusterRunDatabase } from './cluster-database.ts';
import type { ClusterSource } from './cluster-source.ts';

export async function runOnCluster<R>(
  source: ClusterSource | undefined,
  needs: ClusterNeeds,
  probed: Capabilities | undefined,
  on: {
    notHere(reason: string): R;
    run(db: ClusterRunDatabase): Promise<R>;
    /** Whether the case kept what it made (its data is then kept with the cluster's). */
    kept(result: R): boolean;
  },
): Promise<R> {
  if (!source) return on.notHere('the run has no cluster (run --cluster)');
  const why = source.cannot(needs);
  if (why) return on.notHere(why);
  const opened = await source.open(needs, probed);
  if ('cannot' in opened) return on.notHere(opened.cannot);
  let keep = false;
  try {
    const result = await on.run(opened.db);
    keep = on.kept(result);
    return result;
  } finally {
    await opened.close(keep);
  }
}
