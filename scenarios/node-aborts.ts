/**
 * Aborted sales on a node give their units back: one node with 6 units; 3 buyers take a unit and roll
 * back at `before-commit`; then 6 buyers come to the same node and must all be served, and 2 more find it
 * sold out. A node that never gives an aborted unit back answers SOLD_OUT while stock remains.
 */
import {
  defineScenario,
  LAB_SKU,
  requestsFor,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';

const ABORTED = 3;
const STOCK = 6;
const AFTER = STOCK + 2;

export default defineScenario<{ heldAfterAborts: number }>({
  id: 'node-aborts',
  kind: 'script',
  summary: `one node, ${STOCK} units: ${ABORTED} buyers roll back holding a unit, then ${AFTER} buyers on that node`,
  input: {
    clients: ABORTED + AFTER,
    stock: [{ sku: LAB_SKU, total: STOCK }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 1,
  },
  requires: [{ operation: 'reserve', anyOf: ['before-commit'] }],
  async run(ctx) {
    const node = ctx.node(0, 1, 1);
    await ctx.reserve(requestsFor(ctx.params, 1, ABORTED), () => node, { rollbackAt: 'before-commit' });
    const after = await ctx.reserve(requestsFor(ctx.params, ABORTED + 1, AFTER), () => node);
    ctx.observe('heldAfterAborts', after.filter((a) => a.outcome === 'HELD').length);
  },
  expect: {
    outcomes: () => ({ ROLLED_BACK: ABORTED, HELD: STOCK, SOLD_OUT: AFTER - STOCK }),
    observations: () => ({ heldAfterAborts: STOCK }),
    exercised: (_params, { outcomes }) =>
      outcomes.ROLLED_BACK ? [] : ['no buyer rolled back holding a unit'],
  },
});
