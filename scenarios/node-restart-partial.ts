/**
 * A node restarts while every node still has stock (the flash-sale lab's memory-quota restart, mid-sale): 2
 * nodes × 20 of 40; each node sells 10, node-1 restarts, then 15 buyers come to node-1 and 15 to node-2. A
 * design that rebuilds node-1's count from its ledger sells exactly the 20 left (40 in all, 10 SOLD_OUT); one
 * that starts from the configured share sells node-1's 20 again; one that forgets the other node's sales or
 * its own loses units. Designs without memory sell the same 40 from the shared stock.
 */
import { defineScenario, LAB_SKU, requestsFor, TTL_MS } from '../harness/scenario/scenario.ts';

const NODES = 2;
const FIRST = 10;
const LATER = 15;

export default defineScenario<{ heldBeforeRestart: number; heldAfterRestart: number }>({
  id: 'node-restart-partial',
  kind: 'script',
  access: ['node-restart'],
  summary: '2 nodes × 20 of 40; each sells 10, node-1 restarts, then 15 buyers on each node',
  input: {
    clients: NODES * (FIRST + LATER),
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: NODES,
  },
  async run(ctx) {
    const before = await ctx.reserve(requestsFor(ctx.params, 1, NODES * FIRST), (i) =>
      ctx.node(i % NODES, NODES, 1),
    );
    ctx.observe('heldBeforeRestart', before.filter((a) => a.outcome === 'HELD').length);
    const restarted = ctx.node(0, NODES, 2);
    const stayed = ctx.node(1, NODES, 1);
    const onRestarted = await ctx.reserve(requestsFor(ctx.params, NODES * FIRST + 1, LATER), () => restarted);
    const onOther = await ctx.reserve(
      requestsFor(ctx.params, NODES * FIRST + LATER + 1, LATER),
      () => stayed,
    );
    ctx.observe('heldAfterRestart', [...onRestarted, ...onOther].filter((a) => a.outcome === 'HELD').length);
  },
  expect: {
    outcomes: (params) => ({ HELD: 40, SOLD_OUT: params.clients - 40 }),
    observations: () => ({ heldBeforeRestart: NODES * FIRST, heldAfterRestart: 40 - NODES * FIRST }),
  },
});
