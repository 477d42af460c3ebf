import { ABORT_EVERY, SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { distinctUserClients } from './contention.ts';
import { everyUnitAccounted, firstSku, type Scenario, type ScenarioParams } from './scenario.ts';

const aborting = (params: ScenarioParams) => Math.ceil(params.clients / ABORT_EVERY);

/**
 * `contention` where a fixed share of clients (every 4th) rolls back at `before-commit` after taking a
 * unit: false sold-out under load. A design that waits for the holder (hot-row) sells every unit; one that
 * skips locked units may answer SOLD_OUT while a unit comes back (counted as falseSoldOut, reported).
 */
export const contentionAborts: Scenario = {
  id: 'contention-aborts',
  kind: 'clients',
  summary: `contention where every ${ABORT_EVERY}th client rolls back at before-commit: false sold-out under load`,
  input: SCENARIO_INPUTS['contention-aborts'],
  requires: [{ operation: 'reserve', anyOf: ['before-commit'] }],
  plan: (params) => ({
    holdAt: 'after-read',
    clients: distinctUserClients(params).map((client) =>
      client.index % ABORT_EVERY === 0 ? { ...client, rollbackAt: 'before-commit' } : client,
    ),
  }),
  check: (params, outcomes, invariants) =>
    everyUnitAccounted(
      { stock: firstSku(params).total, clients: params.clients, aborting: aborting(params) },
      outcomes,
      invariants,
    ),
};
