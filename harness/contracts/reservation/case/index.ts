/**
 * The scenarios: every file in `fixtures/reservation/scenarios/` is one, found when the harness loads, so adding a
 * scenario is adding a file there. Each file's default export is checked to be a scenario whose id is its
 * file name.
 */
import { Errors } from '../../../errors.ts';
import { scenarioFolder, scenarioIds } from '../../../registry/scenario-ids.ts';
import { importSource } from '../../../registry/source-import.ts';
import type { Scenario } from './scenario.ts';

const FOLDER = scenarioFolder('reservation');

async function loadScenarios(): Promise<Scenario[]> {
  return Promise.all(
    scenarioIds('reservation').map(async (id) => {
      const file = `${id}.ts`;
      const source = new URL(file, FOLDER).href;
      const module = (await importSource(source)) as { default?: Scenario };
      const scenario = module.default;
      if (!scenario || scenario.id !== id || !scenario.expect) {
        throw new Error(
          `fixtures/reservation/scenarios/${file} must export default a scenario with id "${id}"`,
        );
      }
      return { ...scenario, source };
    }),
  );
}

export const SCENARIOS: readonly Scenario[] = await loadScenarios();

export function findScenario(id: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) {
    throw Errors.badInput(
      `unknown scenario "${id}"; choose one of: ${SCENARIOS.map((s) => s.id).join(', ')}`,
    );
  }
  return scenario;
}
