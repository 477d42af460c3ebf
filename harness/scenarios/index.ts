import { Errors } from '../errors.ts';
import { contention } from './contention.ts';
import { contentionAborts } from './contention-aborts.ts';
import { duplicateKey } from './duplicate-key.ts';
import { falseSoldOut } from './false-sold-out.ts';
import { keyReuse } from './key-reuse.ts';
import type { Scenario } from './scenario.ts';
import { userLimit } from './user-limit.ts';

export const SCENARIOS: readonly Scenario[] = [
  contention,
  duplicateKey,
  userLimit,
  keyReuse,
  falseSoldOut,
  contentionAborts,
];

export function findScenario(id: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) {
    throw Errors.badInput(
      `unknown scenario "${id}"; choose one of: ${SCENARIOS.map((s) => s.id).join(', ')}`,
    );
  }
  return scenario;
}
