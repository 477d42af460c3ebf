/**
 * One expired HELD row, a release and an expiry job (a client giving up while the timeout job runs; every
 * order with `--permutations all`). Listed: the job has moved the row and holds it uncommitted when the
 * release comes; a design that re-checks `status = 'HELD'` under the row lock makes the release wait and
 * then find the row EXPIRED. In any order the row ends released or expired, never both, and its unit comes
 * back once (the invariants see a unit returned twice as drift).
 */
import { defineScenario, figure, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';

export default defineScenario<{ released: number; unitsReturned: number }>({
  id: 'release-expire-race',
  kind: 'interleaving',
  summary: 'one expired row: expiry holds it uncommitted while a release arrives (and every other order)',
  input: { clients: 1, stock: [{ sku: LAB_SKU, total: 5 }], user: 'user-0042', ttlMs: TTL_MS },
  operations: ['release', 'expire'],
  requires: [{ operation: 'expire', anyOf: ['before-commit'] }],
  spec: `
    session r
    step "r-reserve"  { RESERVE req-race user-0042 sku-lab-01 TTL 1000 }
    step "r-backdate" { BACKDATE req-race }

    session e
    step "e-expire"   { EXPIRE UNTIL before-commit }
    step "e-commit"   { RESUME COMMIT }

    session c
    step "c-release"  { RELEASE req-race }

    permutation "r-reserve" "r-backdate" "e-expire" "c-release" "e-commit"
  `,
  expect: {
    relations: (_params, { observed }) =>
      figure(
        'rows both released and expired',
        Math.max(0, (observed.released ?? 0) + (observed.unitsReturned ?? 0) - 1),
        0,
      ),
    blocking: { 'hot-row': ['c-release'], 'skip-locked-slots': ['c-release'] },
  },
});
