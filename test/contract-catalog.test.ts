/**
 * Each contract's catalog (harness/contracts/<id>/catalog.ts), which the command line lists and checks
 * without loading the contract, says what the contract itself says: the same contracts in the same order,
 * the same built-in designs and scenarios in the same order, a target with the same checks and a service
 * with the same schema name exactly where the contract has them. A design or scenario added to one and not
 * the other, or a target or service given to one only, fails here.
 */
import { describe, expect, it } from 'vitest';
import type { ScenarioBase } from '../harness/contract/contract.ts';
import type { ContractCatalog } from '../harness/contract/contract-catalog.ts';
import { CATALOGS } from '../harness/contracts/catalogs.ts';
import { CONTRACTS } from '../harness/contracts/index.ts';
import type { AnyContract } from '../harness/suite/suite.ts';

/** What a catalog must say of `contract`, read from the contract object itself. */
function catalogOf(contract: AnyContract) {
  return {
    id: contract.id,
    designIds: [...contract.designs.builtInIds],
    scenarioIds: contract.scenarios.all.map((s: ScenarioBase) => s.id),
    targetChecks: contract.target ? [...contract.target.checks] : undefined,
    schemaName: contract.service?.schemaName.source,
  };
}

/** The same view of a catalog. */
function catalogSays(catalog: ContractCatalog) {
  return {
    id: catalog.id,
    designIds: Object.keys(catalog.builtInDesigns),
    scenarioIds: [...catalog.scenarioIds],
    targetChecks: catalog.target ? [...catalog.target.checks] : undefined,
    schemaName: catalog.service?.schemaName.source,
  };
}

describe('the contract catalogs', () => {
  it('list the contracts CONTRACTS lists, in its order', () => {
    expect(CATALOGS.map((c) => c.id)).toEqual(CONTRACTS.map((c) => c.id));
  });

  it.each(CONTRACTS.map((c) => [c.id, c] as const))('say what the %s contract says', (_id, contract) => {
    const catalog = CATALOGS.find((c) => c.id === contract.id);
    expect(catalog).toBeDefined();
    if (catalog) expect(catalogSays(catalog)).toEqual(catalogOf(contract as AnyContract));
  });

  it('the comparison tells a catalog that lacks a design, a scenario or a target from its contract', () => {
    // The control: each difference the test must see, made on a copy of a real catalog, is seen.
    const [contract] = CONTRACTS;
    const catalog = CATALOGS.find((c) => c.id === contract.id);
    if (!catalog) throw new Error('the first contract has no catalog');
    const [firstDesign] = Object.keys(catalog.builtInDesigns);
    const fewerDesigns = Object.fromEntries(
      Object.entries(catalog.builtInDesigns).filter(([id]) => id !== firstDesign),
    );
    const wrong: ContractCatalog[] = [
      { ...catalog, builtInDesigns: fewerDesigns },
      { ...catalog, scenarioIds: catalog.scenarioIds.slice(1) },
      { ...catalog, scenarioIds: [...catalog.scenarioIds, 'a-scenario-only-the-catalog-has'] },
      { ...catalog, target: undefined },
      { ...catalog, service: { schemaName: /^[a-z]+$/ } },
    ];
    for (const each of wrong) expect(catalogSays(each)).not.toEqual(catalogOf(contract as AnyContract));
  });
});
