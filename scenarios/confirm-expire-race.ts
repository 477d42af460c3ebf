/**
 * One expired HELD row, a confirmer and an expiry job (the flash-sale lab's confirm-vs-expire race on a
 * single row, every order with `--permutations all`). Listed: the job has moved the row and holds it
 * uncommitted when the confirmer comes; a design that re-checks `status = 'HELD'` under the row lock makes
 * the confirmer wait and then find the row EXPIRED. In any order the row ends confirmed or expired, never
 * both, and a unit comes back only for an expired row (the invariants see a row both confirmed and returned
 * as drift).
 */
import { defineScenario, figure, LAB_SKU, TTL_MS } from '../harness/scenario/scenario.ts';

export default defineScenario<{ confirmed: number; unitsReturned: number }>({
  id: 'confirm-expire-race',
  kind: 'interleaving',
  summary: 'one expired row: expiry holds it uncommitted while a confirm arrives (and every other order)',
  input: { clients: 1, stock: [{ sku: LAB_SKU, total: 5 }], user: 'user-0042', ttlMs: TTL_MS },
  operations: ['confirm', 'expire'],
  requires: [{ operation: 'expire', anyOf: ['before-commit'] }],
  spec: `
    session r
    step "r-reserve"  { RESERVE req-race user-0042 sku-lab-01 TTL 1000 }
    step "r-backdate" { BACKDATE req-race }

    session e
    step "e-expire"   { EXPIRE UNTIL before-commit }
    step "e-commit"   { RESUME COMMIT }

    session c
    step "c-confirm"  { CONFIRM req-race }

    permutation "r-reserve" "r-backdate" "e-expire" "c-confirm" "e-commit"
  `,
  expect: {
    relations: (_params, { observed }) =>
      figure(
        'rows both confirmed and expired',
        Math.max(0, (observed.confirmed ?? 0) + (observed.unitsReturned ?? 0) - 1),
        0,
      ),
    blocking: { 'hot-row': ['c-confirm'], 'skip-locked-slots': ['c-confirm'] },
  },
});
