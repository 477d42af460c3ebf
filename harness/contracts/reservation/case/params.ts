/** The inputs of one case of a scenario: its own, the command line's overrides applied to a many-client one. */
import type { ScenarioOverrides } from '../../../contract/case-settings.ts';
import type { Scenario, ScenarioParams } from './scenario.ts';

/** Overrides apply to the many-client scenarios; an interleaving's inputs are part of its definition. */
export function paramsFor(scenario: Scenario, given: ScenarioOverrides): ScenarioParams {
  const overrides = scenario.kind === 'clients' ? given : {};
  const stock = scenario.input.stock.map((line, i) =>
    i === 0 && overrides.stock !== undefined ? { ...line, total: overrides.stock } : { ...line },
  );
  return {
    clients: overrides.clients ?? scenario.input.clients,
    stock,
    user: scenario.input.user,
    ttlMs: scenario.input.ttlMs,
    nodes: scenario.kind === 'interleaving' ? 1 : scenario.input.nodes,
  };
}
