/** A finding's spec, run again from its file: it must fail on every replay to be reported as found. */
import type { StrategyRef } from '../../../../strategies/contract.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import { driveInterleaving } from '../case/drive-interleaving.ts';
import { onFreshTables } from '../case/fresh-tables.ts';
import { specScenario } from '../case/spec-file.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { hasFailover } from './drive-failover.ts';
import { onFailoverCluster } from './failover-cluster.ts';

export async function replaySpec(
  db: RunDatabase,
  ref: StrategyRef,
  text: string,
  file: string,
  settings: CaseSettings,
  times: number,
): Promise<CaseResult[]> {
  const scenario = specScenario(text, file);
  const [permutation] = parseSpec(text, file, [RESERVATION_VERBS]).permutations;
  if (!permutation) return [];
  const spec = {
    id: `${scenario.id}/${ref.strategy.id}`,
    scenario,
    ref,
    params: { clients: 1, stock: scenario.input.stock, user: 'u1', ttlMs: 60_000, nodes: 1 },
  };
  const results: CaseResult[] = [];
  for (let i = 0; i < times; i++)
    results.push(
      hasFailover(permutation)
        ? await onFailoverCluster(db, spec, settings, permutation)
        : await onFreshTables(db, spec, settings, (on) => driveInterleaving(on, permutation, false)),
    );
  return results;
}
