/**
 * One case of a cluster scenario: on a cluster of its own (or the user's, its turn come), with a run
 * database there, driven as a script and judged across the copies its final read finds. The lane's
 * database is not used. A backend that cannot give what the scenario needs makes the case n/a, with the
 * reason; what a failed case keeps (the members' data, its schema) is said where the run lists what it
 * kept, never on the lane's database.
 */

import { runOnCluster } from '../../../cluster/cluster-case.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { type CaseOnSchema, type CaseSpec, identityOf } from './case-spec.ts';
import { driveScript } from './drive-script.ts';
import { onFreshTables } from './fresh-tables.ts';
import type { ScriptScenario } from './scenario.ts';

/** The line of a case that cannot run on the cluster the run has. */
function notOnThisCluster(spec: CaseSpec, reason: string): CaseResult {
  return {
    ...identityOf(spec),
    status: 'n/a',
    outcomes: {},
    invariants: null,
    boundary: `n/a: ${reason}`,
    reason,
    coverage: { missing: [] },
  };
}

export function runClusterCase(
  lane: RunDatabase,
  pool: ClientDriver,
  spec: CaseSpec,
  settings: CaseSettings,
  // biome-ignore lint/suspicious/noExplicitAny: each script scenario types its own observations
  scenario: ScriptScenario<any>,
): Promise<CaseResult> {
  const needs = scenario.cluster;
  if (!needs) return Promise.resolve(notOnThisCluster(spec, 'the scenario declares no cluster'));
  let kept = false;
  return runOnCluster<CaseResult>(spec.cluster, needs, lane.capabilities, {
    notHere: (reason) => notOnThisCluster(spec, reason),
    kept: () => kept,
    async run(db) {
      const drive = (on: CaseOnSchema) => driveScript(on, scenario, pool);
      const result = await onFreshTables(db, spec, settings, drive, true, pool);
      if (!('keptSchema' in result) || result.keptSchema === undefined) return result;
      // Kept with the cluster, not in the lane's database: the run's kept lines say where.
      kept = true;
      const { keptSchema, ...rest } = result;
      return { ...rest, boundary: `${rest.boundary} (kept: schema ${keptSchema} in ${db.name})` };
    },
  });
}
