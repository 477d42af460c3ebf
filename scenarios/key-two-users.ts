/**
 * The same request_key sent by two users at the same instant: the key belongs to whoever recorded it, and
 * the other is told KEY_REUSED with nothing written — never two holds under one key.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';

export default defineScenario({
  id: 'key-two-users',
  kind: 'interleaving',
  summary: 'one request_key from two users at once: HELD 1 + KEY_REUSED 1',
  input: { clients: 2, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0042', ttlMs: TTL_MS },
  requires: [{ operation: 'reserve', anyOf: ['after-read'] }],
  spec: `
    session a
    step "a-claim"  { RESERVE req-shared user-0042 sku-lab-01 UNTIL after-read }
    step "a-commit" { RESUME COMMIT }

    session b
    step "b-send"   { RESERVE req-shared user-0043 sku-lab-01 }

    permutation "a-claim" "b-send" "a-commit"
  `,
  expect: {
    outcomes: () => ({ HELD: 1, KEY_REUSED: 1 }),
    relations: (_params, { invariants }) =>
      invariants.active === 1
        ? []
        : [
            {
              check: 'observations',
              message: `active ${invariants.active}, expected 1 hold under the shared key`,
            },
          ],
  },
});
