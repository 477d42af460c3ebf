import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { exactly, firstSku, requestsFor, type Scenario } from './scenario.ts';

const NODES = 2;

/**
 * Seed C28-15: 2 nodes share 40 units (20 each). Two thirds of the clients go to the nodes evenly, so each
 * sells out its share; node-1 then restarts (its memory is gone) and the last third go to it. A node that
 * rebuilds its count from the ledger sells nothing more; one that starts from its configured share sells
 * its 20 again (60 sales for 40 units).
 */
export const restart: Scenario = {
  id: 'restart',
  kind: 'script',
  summary: '2 nodes × 20 of 40; node-1 sells out, restarts, and is sent more clients (seed C28-15)',
  input: SCENARIO_INPUTS.restart,
  requires: [{ operation: 'reserve', anyOf: ['after-memory-before-ledger'] }],
  async run(ctx) {
    const first = Math.round((ctx.params.clients * 2) / 3);
    const before = await ctx.reserve(requestsFor(ctx.params, 1, first), (i) => ctx.node(i % NODES, NODES, 1));
    ctx.observe('heldBeforeRestart', before.filter((a) => a.outcome === 'HELD').length);
    const restarted = ctx.node(0, NODES, 2);
    const after = await ctx.reserve(
      requestsFor(ctx.params, first + 1, ctx.params.clients - first),
      () => restarted,
    );
    ctx.observe('heldAfterRestart', after.filter((a) => a.outcome === 'HELD').length);
  },
  check(params, outcomes) {
    const held = Math.min(firstSku(params).total, params.clients);
    return exactly({ HELD: held, SOLD_OUT: params.clients - held }, outcomes);
  },
};
