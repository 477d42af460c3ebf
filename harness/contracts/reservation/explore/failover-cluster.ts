/**
 * Where a program with a FAILOVER step runs: a synchronous cluster of its own (a primary and one standby,
 * its link through the suite's proxy), brought up for the program and removed after it, from the source
 * `explore --cluster embedded` gave (CaseSettings.failoverCluster). The program's tables, its final read
 * across the copies and every check are the cluster case's (fresh-tables.ts on the cluster's database).
 */
import type { ClusterNeeds } from '../../../cluster/cluster.ts';
import { runOnCluster } from '../../../cluster/cluster-case.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { Errors } from '../../../errors.ts';
import type { Permutation } from '../../../interleaving/permutation.ts';
import type { CaseSpec } from '../case/case-spec.ts';
import { onFreshTables } from '../case/fresh-tables.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { driveFailover } from './drive-failover.ts';

export const FAILOVER_NEEDS: ClusterNeeds = {
  replication: 'sync',
  standbys: 1,
  faults: ['partition', 'failover'],
};

export function onFailoverCluster(
  lane: RunDatabase,
  spec: CaseSpec,
  settings: CaseSettings,
  permutation: Permutation,
): Promise<CaseResult> {
  const source = settings.failoverCluster;
  const cannot = (reason: string): never => {
    throw Errors.badInput(`a program with FAILOVER runs on a synchronous cluster: ${reason}`);
  };
  if (!source) return cannot('none was given (explore --cluster embedded)');
  const quiet = { ...settings, keepFailed: false, keepAll: false };
  return runOnCluster<CaseResult>(source, FAILOVER_NEEDS, lane.capabilities, {
    notHere: cannot,
    kept: () => false,
    run: (db) => onFreshTables(db, spec, quiet, (on) => driveFailover(on, permutation)),
  });
}
