/**
 * The flash-sale lab's memory-quota restart: 2 nodes share 40 units (20 each). Two thirds of the clients go
 * to the nodes evenly, so each sells out its share; node-1 then restarts (its memory is gone) and the last
 * third go to it. A node that rebuilds its count from the ledger sells nothing more; one that starts from its
 * configured share sells its 20 again (60 sales for 40 units).
 */
import { defineScenario, firstSku, LAB_SKU, requestsFor, TTL_MS } from '../harness/scenario/scenario.ts';

const NODES = 2;

export default defineScenario<{ heldBeforeRestart: number; heldAfterRestart: number }>({
  id: 'restart',
  kind: 'script',
  access: ['node-restart'],
  summary:
    "2 nodes × 20 of 40; node-1 sells out, restarts, and is sent more clients (the flash-sale lab's memory-quota restart)",
  input: {
    clients: 120,
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: NODES,
  },
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
  expect: {
    outcomes(params) {
      const held = Math.min(firstSku(params).total, params.clients);
      return { HELD: held, SOLD_OUT: params.clients - held };
    },
  },
});
