/**
 * A contract's scenarios are the files of its fixtures folder (fixtures/<contract>/scenarios/), one each,
 * named by its id: the ids are read from the folder's listing, without importing a scenario, for what
 * only names them (the command line's help and checks).
 */
import { readdirSync } from 'node:fs';

/** The folder of a contract's scenario files. */
export function scenarioFolder(contract: string): URL {
  return new URL(`../../fixtures/${contract}/scenarios/`, import.meta.url);
}

/** The ids of a contract's scenarios, sorted, so that a report reads the same whatever order the folder lists. */
export function scenarioIds(contract: string): string[] {
  return readdirSync(scenarioFolder(contract))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();
}
