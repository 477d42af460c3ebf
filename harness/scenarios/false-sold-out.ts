import { SCENARIO_INPUTS, userId } from '../../fixtures/scenario-inputs.ts';
import { everyUnitAccounted, firstSku, requestOn, type Scenario, type ScenarioParams } from './scenario.ts';

const request = (params: ScenarioParams, n: number) => requestOn(params, `req-t${n}`, userId(n));

/**
 * Seed C28-14, deterministic: 2 units; t1 takes one and stays uncommitted at `before-commit`; t2 takes
 * the other; t3 asks; t1 rolls back. A design that waits shows t3 blocked (pg_blocking_pids) and then
 * HELD; a design that skips locked units answers t3 SOLD_OUT while one unit is in fact left.
 */
export const falseSoldOut: Scenario = {
  id: 'false-sold-out',
  kind: 'interleaving',
  summary: '2 units: t1 holds one uncommitted, t2 takes the other, t3 asks, t1 rolls back (seed C28-14)',
  input: SCENARIO_INPUTS['false-sold-out'],
  requires: [{ operation: 'reserve', anyOf: ['before-commit'] }],
  // A design that waits queues t2 and t3 behind t1's row lock; one that skips locked units never waits.
  blocking: { 'hot-row': ['t2-take', 't3-ask'], 'skip-locked-slots': [], 'memory-quota': [] },
  permutation: (params) => ({
    sessions: ['t1', 't2', 't3'],
    steps: [
      { name: 't1-take', session: 't1', reserve: request(params, 1), until: 'before-commit' },
      { name: 't2-take', session: 't2', reserve: request(params, 2) },
      { name: 't3-ask', session: 't3', reserve: request(params, 3) },
      { name: 't1-rollback', session: 't1', resume: 'rollback' },
    ],
  }),
  check: (params, outcomes, invariants) =>
    everyUnitAccounted({ stock: firstSku(params).total, clients: 3, aborting: 1 }, outcomes, invariants),
};
