/**
 * A contract's scenarios: every file in `fixtures/<contract>/scenarios/` is one, found when the harness
 * loads, each checked to be a scenario of that contract named by its file.
 */
import { scenarioFolder, scenarioIds } from './scenario-ids.ts';
import { importSource } from './source-import.ts';

/** Every scenario in the contract's fixtures folder, by id, each with the file it came from. */
export async function loadScenarioFolder<S extends { contract: string; id: string }>(
  contract: S['contract'],
  /** `an order scenario`: what the file must export, as the error says it. */
  described: string,
): Promise<S[]> {
  const folder = scenarioFolder(contract);
  return Promise.all(
    scenarioIds(contract).map(async (id) => {
      const source = new URL(`${id}.ts`, folder).href;
      const module = (await importSource(source)) as { default?: S };
      const scenario = module.default;
      if (scenario?.contract !== contract || scenario.id !== id) {
        throw new Error(
          `fixtures/${contract}/scenarios/${id}.ts must export default ${described} with id "${id}"`,
        );
      }
      return { ...scenario, source };
    }),
  );
}
