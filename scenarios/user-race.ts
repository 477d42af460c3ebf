/**
 * The flash-sale lab's user-index counter-example: one user, two keys, two sessions; each runs to
 * `after-read` before either goes on. A design that checks "has this user an active hold?" in the application
 * lets both through (2 active holds); with the partial unique index the second insert waits for the first and
 * answers USER_LIMIT.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'user-race',
  kind: 'interleaving',
  summary:
    "one user, two keys: both sessions read before either writes (the flash-sale lab's user-index counter-example)",
  input: { clients: 2, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0042', ttlMs: TTL_MS },
  requires: [{ operation: 'reserve', anyOf: ['after-read'] }],
  spec: `
    session s1
    step "s1-read"  { RESERVE req-race-a user-0042 sku-lab-01 UNTIL after-read }
    step "s1-write" { RESUME COMMIT }

    session s2
    step "s2-read"  { RESERVE req-race-b user-0042 sku-lab-01 UNTIL after-read }
    step "s2-write" { RESUME COMMIT }

    permutation "s1-read" "s2-read" "s1-write" "s2-write"
  `,
  expect: {
    outcomes: () => ({ HELD: 1, USER_LIMIT: 1 }),
    // The key is claimed before after-read, so s2's insert waits on s1's uncommitted entry in the user index;
    // memory-quota reads first and inserts after the pause, when s1 has committed.
    blocking: { 'hot-row': ['s2-read'], 'skip-locked-slots': ['s2-read'], 'memory-quota': [] },
  },
});
