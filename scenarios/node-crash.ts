/**
 * One node holds all the stock (20). It sells half; the next sale runs in a child process that is killed
 * -9 after decrementing its memory and before the ledger insert commits (`after-memory-before-ledger`);
 * the node restarts and 30 more clients come. Counted: units sold in all, and units lost (never sold
 * although nobody holds them). Rebuilding from the ledger loses nothing; starting from the configured share
 * sells the share again. A design without memory is killed before its commit (`before-commit`) and must lose
 * nothing either.
 */

import {
  defineScenario,
  figure,
  firstSku,
  LAB_SKU,
  requestsFor,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';
import type { PausePoint } from '../strategies/contract.ts';

/** A design with memory is killed between it and its ledger; one without, before its commit. */
const CRASH_POINTS: readonly PausePoint[] = ['after-memory-before-ledger', 'before-commit'];

export default defineScenario<{
  crashedAt: string;
  childSignal: string;
  unitsLost: number;
  oversoldAfterCrash: number;
}>({
  id: 'node-crash',
  kind: 'script',
  access: ['child-process', 'node-restart'],
  summary: 'a node killed -9 between its memory and its ledger insert, then restarted; 30 more clients',
  input: { clients: 40, stock: [{ sku: LAB_SKU, total: 20 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 1 },
  requires: [{ operation: 'reserve', anyOf: CRASH_POINTS }],
  async run(ctx) {
    const stock = firstSku(ctx.params).total;
    const half = Math.floor(stock / 2);
    const firstRun = ctx.node(0, 1, 1);
    const before = await ctx.reserve(requestsFor(ctx.params, 1, half), () => firstRun);
    const [inFlight] = requestsFor(ctx.params, half + 1, 1);
    if (!inFlight) throw new Error('no request to crash');
    const crashAt = CRASH_POINTS.find((p) => ctx.strategy.pausePoints.reserve?.includes(p));
    if (!crashAt) throw new Error(`${ctx.strategy.id}'s reserve declares none of ${CRASH_POINTS.join(', ')}`);
    const child = await ctx.crash({ reserve: inFlight, node: ctx.node(0, 1, 2) }, crashAt);
    ctx.observe('crashedAt', child.stage);
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
  expect: {
    outcomes(params) {
      const stock = firstSku(params).total;
      return { HELD: stock, SOLD_OUT: params.clients - 1 - stock };
    },
    observations: () => ({ childSignal: 'SIGKILL' }),
    relations: (_params, { invariants }) =>
      figure('units never sold', invariants.total - invariants.active, 0),
    boundaryNote: ({ unitsLost }) =>
      unitsLost === undefined
        ? undefined
        : `undersell after crash: ${unitsLost === 0 ? 'none' : `${unitsLost} unit(s)`}`,
  },
});
