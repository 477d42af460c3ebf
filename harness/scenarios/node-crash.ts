import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { exactly, figure, firstSku, observedExactly, requestsFor, type Scenario } from './scenario.ts';

/**
 * One node holds all the stock (20). It sells half; the next sale runs in a child process that is killed
 * -9 after decrementing its memory and before the ledger insert commits (`after-memory-before-ledger`);
 * the node restarts and 30 more clients come. Counted: units sold in all, and units lost (never sold
 * although nobody holds them). Rebuilding from the ledger loses nothing; starting from the configured share
 * sells the share again.
 */
export const nodeCrash: Scenario = {
  id: 'node-crash',
  kind: 'script',
  summary: 'a node killed -9 between its memory and its ledger insert, then restarted; 30 more clients',
  input: SCENARIO_INPUTS['node-crash'],
  requires: [{ operation: 'reserve', anyOf: ['after-memory-before-ledger'] }],
  async run(ctx) {
    const stock = firstSku(ctx.params).total;
    const half = Math.floor(stock / 2);
    const firstRun = ctx.node(0, 1, 1);
    const before = await ctx.reserve(requestsFor(ctx.params, 1, half), () => firstRun);
    const [inFlight] = requestsFor(ctx.params, half + 1, 1);
    if (!inFlight) throw new Error('no request to crash');
    const child = await ctx.crash(
      { reserve: inFlight, node: ctx.node(0, 1, 2) },
      'after-memory-before-ledger',
    );
    if (!('killAndWaitGone' in child))
      throw new Error(`the reservation finished (${JSON.stringify(child.result)})`);
    const { signal } = await child.killAndWaitGone();
    ctx.observe('childSignal', signal ?? 'none');
    const restarted = ctx.node(0, 1, 3);
    const later = ctx.params.clients - half - 1;
    const after = await ctx.reserve(requestsFor(ctx.params, half + 2, later), () => restarted);
    const sold = [...before, ...after].filter((a) => a.outcome === 'HELD').length;
    ctx.observe('unitsLost', Math.max(0, stock - sold));
    ctx.observe('oversoldAfterCrash', Math.max(0, sold - stock));
  },
  check(params, outcomes, invariants, observed) {
    const stock = firstSku(params).total;
    const answered = params.clients - 1;
    return [
      ...exactly({ HELD: stock, SOLD_OUT: answered - stock }, outcomes),
      ...observedExactly({ childSignal: 'SIGKILL' }, observed),
      ...figure('units never sold', invariants.total - invariants.active, 0),
    ];
  },
};
