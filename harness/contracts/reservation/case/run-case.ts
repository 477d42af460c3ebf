/**
 * One case: a scenario against a strategy — n/a when it does not apply, else driven on fresh tables by
 * its kind (clients, a script, an interleaving), audited in one snapshot and judged against the
 * strategy's expectation.
 */

import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { notApplicable } from './applicability.ts';
import type { CaseSpec } from './case-spec.ts';
import { runClusterCase } from './cluster-case.ts';
import { driveClients } from './drive-clients.ts';
import { driveScript } from './drive-script.ts';
import { onFreshTables } from './fresh-tables.ts';
import { runInterleaving } from './permutations.ts';

export async function runCase(
  db: RunDatabase,
  pool: ClientDriver,
  spec: CaseSpec,
  settings: CaseSettings,
): Promise<CaseResult> {
  const skipped = notApplicable(spec, db);
  if (skipped) return skipped;
  const { scenario } = spec;
  if (scenario.kind === 'interleaving') return runInterleaving(db, spec, settings, scenario);
  if (scenario.kind === 'script' && scenario.cluster)
    return runClusterCase(db, pool, spec, settings, scenario);
  return onFreshTables(
    db,
    spec,
    settings,
    (on) => (scenario.kind === 'script' ? driveScript(on, scenario, pool) : driveClients(on, scenario, pool)),
    true,
    pool,
  );
}
