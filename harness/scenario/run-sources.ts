/** The report's `sources`: every design and scenario file a run ran, with its digest (source-manifest.ts). */
import type { StrategyRef } from '../../strategies/contract.ts';
import { type SourceEntry, sourceEntry } from '../registry/source-manifest.ts';
import type { Scenario } from './scenario.ts';

const isFile = (url: string) => url.startsWith('file:');

export function runSources(
  strategies: readonly StrategyRef[],
  scenarios: readonly Scenario[],
): SourceEntry[] {
  const designs = strategies
    .filter((ref) => isFile(ref.moduleUrl))
    .map((ref) => sourceEntry('design', ref.strategy.id, ref.moduleUrl));
  const scenarioEntries = scenarios.flatMap((s) =>
    s.source && isFile(s.source) ? [sourceEntry('scenario', s.id, s.source)] : [],
  );
  return [...designs, ...scenarioEntries];
}
