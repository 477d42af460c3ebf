/**
 * A backend killed under a client in the middle of its transaction (pg_terminate_backend, as an operator
 * or a connection pooler does): t1 holds a unit at `before-commit` and t2 is mid-read at `after-read`
 * when both backends are terminated; their work must roll back (INDETERMINATE to the client: 57P01, or 08006 when the closed socket is seen first; the final read finds nothing of theirs), the unit t1 had
 * taken must be back, and a later buyer gets it. Seen on the database: the kill is a SQL step of the
 * spec, and the case then reads every key back.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';

export default defineScenario({
  id: 'backend-killed',
  kind: 'interleaving',
  summary:
    'backends terminated at before-commit and after-read: 57P01, their units back, a later buyer served',
  input: { clients: 3, stock: [{ sku: LAB_SKU, total: 1 }], user: 'user-0001', ttlMs: TTL_MS },
  requires: [
    { operation: 'reserve', anyOf: ['before-commit'] },
    { operation: 'reserve', anyOf: ['after-read'] },
  ],
  spec: `
    session t1
    step "t1-take"   { RESERVE req-k1 user-0001 sku-lab-01 UNTIL before-commit }
    step "t1-resume" { RESUME COMMIT }

    session t2
    step "t2-read"   { RESERVE req-k2 user-0002 sku-lab-01 UNTIL after-read }
    step "t2-resume" { RESUME COMMIT }

    session op
    step "op-kill"   { SELECT count(pg_terminate_backend(pid)) AS killed FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('reservebench-t1', 'reservebench-t2') }

    session t3
    step "t3-buy"    { RESERVE req-k3 user-0003 sku-lab-01 }

    permutation "t1-take" "t2-read" "op-kill" "t1-resume" "t2-resume" "t3-buy"
  `,
  expect: {
    // 57P01 when the server's reason reaches the client first, 08006 when the closed socket does.
    faults: ['57P01', '08006'],
    orderDependent: true,
    outcomes: () => ({ INDETERMINATE: 2, HELD: 1 }),
    exercised: (_params, { outcomes }) =>
      outcomes.INDETERMINATE ? [] : ['no backend was terminated under a client'],
  },
});
