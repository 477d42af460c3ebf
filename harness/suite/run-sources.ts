/** The report's `sources`: every design and scenario file a run ran, with its digest (source-manifest.ts). */
import type { DesignInfo, ScenarioBase } from '../contract/contract.ts';
import { type SourceEntry, sourceEntry } from '../registry/source-manifest.ts';

const isFile = (url: string) => url.startsWith('file:');

/** What the sources read of a contract's share of a run: its designs (through the contract) and scenarios. */
export interface RunSourceContract {
  contract: { designs: { info(ref: never): DesignInfo } };
  selection: { designs: readonly unknown[]; scenarios: readonly ScenarioBase[] };
}

/** Every contract's designs first, then every contract's scenarios, each in the contracts' order. */
export function runSources(contracts: readonly RunSourceContract[]): SourceEntry[] {
  const designs = contracts.flatMap(({ contract, selection }) =>
    selection.designs.map((ref) => contract.designs.info(ref as never)),
  );
  const designEntries = designs.flatMap(({ design, moduleUrl }) =>
    isFile(moduleUrl) ? [sourceEntry('design', design.id, moduleUrl)] : [],
  );
  const scenarioEntries = contracts
    .flatMap(({ selection }) => selection.scenarios)
    .flatMap((s) => (s.source && isFile(s.source) ? [sourceEntry('scenario', s.id, s.source)] : []));
  return [...designEntries, ...scenarioEntries];
}
