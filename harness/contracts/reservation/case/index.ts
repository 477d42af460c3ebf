/**
 * The scenarios: every file in `fixtures/reservation/scenarios/` is one, found when the harness loads, so adding a
 * scenario is adding a file there. Each file's default export is checked to be a scenario whose id is its
 * file name.
 */
import { readdirSync } from 'node:fs';
import { Errors } from '../../../errors.ts';
import { importSource } from '../../../registry/source-import.ts';
import type { Scenario } from './scenario.ts';

const FOLDER = new URL('../../../../fixtures/reservation/scenarios/', import.meta.url);

async function loadScenarios(): Promise<Scenario[]> {
  // Sorted by id, so a report reads the same every run whatever order the directory lists.
  const files = readdirSync(FOLDER)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort()
    .map((id) => `${id}.ts`);
  return Promise.all(
    files.map(async (file) => {
      const source = new URL(file, FOLDER).href;
      const module = (await importSource(source)) as { default?: Scenario };
      const scenario = module.default;
      const id = file.slice(0, -'.ts'.length);
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
