/**
 * The flash-sale lab's intermittent {HELD 1, REPLAY 14, USER_LIMIT 1}, the decision made deterministic: a
 * replay of a key whose first request has written its row but not committed. The replay meets that row in a
 * unique index, waits, and once the first commits either finds the key (ON CONFLICT on the key) or gets a
 * unique violation. A design that inserts without ON CONFLICT and calls every 23505 USER_LIMIT fails here on
 * every run. The flash-sale lab's own window — a replay passing the key's pre-check inside one INSERT just
 * before the first row lands, so that the violation comes from the one-active-per-user index — lies inside
 * one statement and no pause point can hold it: a design with ON CONFLICT on the key that skips the lookup is
 * only caught when `duplicate-key`'s scheduler happens to produce it.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'replay-race',
  kind: 'interleaving',
  summary: 'a replay of a key whose first request has written but not committed: REPLAY, never USER_LIMIT',
  input: { clients: 2, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0042', ttlMs: TTL_MS },
  requires: [{ operation: 'reserve', anyOf: ['after-read'] }],
  spec: `
    session s1
    step "s1-claim"  { RESERVE req-replay user-0042 sku-lab-01 UNTIL after-read }
    step "s1-commit" { RESUME COMMIT }

    session s2
    step "s2-replay" { RESERVE req-replay user-0042 sku-lab-01 }

    permutation "s1-claim" "s2-replay" "s1-commit"
  `,
  expect: {
    outcomes: () => ({ HELD: 1, REPLAY: 1 }),
    // hot-row and skip-locked-slots claim the key before after-read: the replay waits on that row.
    // memory-quota reads first and writes after the pause: the replay goes ahead and the first replays it.
    blocking: { 'hot-row': ['s2-replay'], 'skip-locked-slots': ['s2-replay'], 'memory-quota': [] },
  },
});
