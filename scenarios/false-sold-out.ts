/**
 * The flash-sale lab's false sold-out, deterministic: 2 units; t1 takes one and stays uncommitted at
 * `before-commit`; t2 takes the other; t3 asks; t1 rolls back. A design that waits shows t3 blocked
 * (pg_blocking_pids) and then HELD; a design that skips locked units answers t3 SOLD_OUT while one unit is in
 * fact left.
 */
import {
  defineScenario,
  everyUnitAccounted,
  firstSku,
  LAB_SKU,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'false-sold-out',
  kind: 'interleaving',
  summary:
    "2 units: t1 holds one uncommitted, t2 takes the other, t3 asks, t1 rolls back (the flash-sale lab's false sold-out)",
  input: { clients: 3, stock: [{ sku: LAB_SKU, total: 2 }], user: 'user-0001', ttlMs: TTL_MS },
  requires: [{ operation: 'reserve', anyOf: ['before-commit'] }],
  spec: `
    session t1
    step "t1-take"     { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }
    step "t1-rollback" { RESUME ROLLBACK }

    session t2
    step "t2-take"     { RESERVE req-t2 user-0002 sku-lab-01 }

    session t3
    step "t3-ask"      { RESERVE req-t3 user-0003 sku-lab-01 }

    permutation "t1-take" "t2-take" "t3-ask" "t1-rollback"
  `,
  expect: {
    relations: (params, { outcomes, invariants }) =>
      everyUnitAccounted({ stock: firstSku(params).total, clients: 3, aborting: 1 }, outcomes, invariants),
    // A design that waits queues t2 and t3 behind t1's row lock; one that skips locked units never waits.
    blocking: { 'hot-row': ['t2-take', 't3-ask'], 'skip-locked-slots': [], 'memory-quota': [] },
  },
});
