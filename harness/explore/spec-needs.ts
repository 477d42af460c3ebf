/**
 * What a spec asks of a design, read off its steps: the optional operations it calls (CONFIRM, RELEASE,
 * EXPIRE, DISABLE) and the pause points it holds an operation at (`UNTIL`). A design without one is `not
 * covered` by the spec, as by any scenario (applicability.ts), never failed for a step it cannot take:
 * whether a design passes must not depend on which optional operations it has. BACKDATE is no need: for a
 * design without the hook the step waits on the database clock instead.
 */
import type { PausingOperation } from '../../strategies/contract.ts';
import type { Step } from '../interleaving/permutation.ts';
import type { LifecycleOperation, PauseNeed } from '../scenario/scenario.ts';

export interface SpecNeeds {
  operations: LifecycleOperation[];
  requires: PauseNeed[];
}

export function specNeeds(steps: readonly Step[]): SpecNeeds {
  const operations = new Set<LifecycleOperation>();
  const requires: PauseNeed[] = [];
  for (const step of steps) {
    let operation: PausingOperation | undefined;
    if ('reserve' in step) operation = 'reserve';
    else if ('operation' in step && step.operation !== 'backdate') {
      operation = step.operation;
      operations.add(step.operation);
    }
    if (operation && 'until' in step && step.until) requires.push({ operation, anyOf: [step.until] });
  }
  return { operations: [...operations], requires };
}
