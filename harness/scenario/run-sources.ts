/** The report's `sources`: every design and scenario file a run ran, with its digest (source-manifest.ts). */
import type { StrategyRef } from '../../strategies/contract.ts';
import type { PaymentDesignRef } from '../registry/payment-registry.ts';
import { type SourceEntry, sourceEntry } from '../registry/source-manifest.ts';
import type { PaymentScenario } from './payment/payment-scenario.ts';
import type { Scenario } from './scenario.ts';

const isFile = (url: string) => url.startsWith('file:');

/** Reservation designs and scenarios first, then the payment contract's (seed 002 names both). */
export function runSources(
  strategies: readonly StrategyRef[],
  scenarios: readonly Pick<Scenario | PaymentScenario, 'id' | 'source'>[],
  payments?: { designs: readonly PaymentDesignRef[]; scenarios: readonly PaymentScenario[] },
): SourceEntry[] {
  const designs = [
    ...strategies.map((ref) => ({ id: ref.strategy.id, url: ref.moduleUrl })),
    ...(payments?.designs ?? []).map((ref) => ({ id: ref.design.id, url: ref.moduleUrl })),
  ];
  const designEntries = designs.flatMap(({ id, url }) =>
    isFile(url) ? [sourceEntry('design', id, url)] : [],
  );
  const scenarioEntries = [...scenarios, ...(payments?.scenarios ?? [])].flatMap((s) =>
    s.source && isFile(s.source) ? [sourceEntry('scenario', s.id, s.source)] : [],
  );
  return [...designEntries, ...scenarioEntries];
}
