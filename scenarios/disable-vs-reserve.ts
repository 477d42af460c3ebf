/**
 * LabReserve's reason for the resource lock: an administrator disables a sku while bookings are in flight.
 * Listed: a booking is held at `before-commit` (transaction open); the disable comes and, in a design that
 * coordinates the two (row-lock-count: the booking holds the resource FOR SHARE), waits for it; the
 * booking commits, the disable goes on and stays uncommitted at its own `before-commit`; a second booking
 * comes and waits for the disable, then is refused; after the disable commits, a third booking is refused.
 *
 * Every order of these steps runs with `--permutations all`, and who wins a race between a booking and
 * the disable depends on the order, so the expectations are what holds in every order: the disable
 * disables the sku once; every answer is HELD or SOLD_OUT; the booking after the disable (it shares the
 * administrator's session, so it comes after the commit in every order) is refused and nothing of it is
 * written (a SOLD_OUT with an active row is unacknowledgedActive). That a booking in flight is waited for,
 * and that a booking waits for an uncommitted disable, is what the listed order's blocking shows.
 *
 * The harness's falseSoldOut does not know the sku was disabled: it counts the refused bookings (units
 * are left on the sku), which is this scenario's point, not a false sold-out.
 */
import { defineScenario, LAB_SKU, type Problem, TTL_MS } from '../harness/scenario/scenario.ts';

export default defineScenario<{ disabled: number }>({
  id: 'disable-vs-reserve',
  kind: 'interleaving',
  summary: 'a disable meets a booking in flight, then a booking meets the uncommitted disable (LabReserve)',
  input: { clients: 3, stock: [{ sku: LAB_SKU, total: 5 }], user: 'user-0001', ttlMs: TTL_MS },
  operations: ['disable'],
  requires: [
    { operation: 'reserve', anyOf: ['before-commit'] },
    { operation: 'disable', anyOf: ['before-commit'] },
  ],
  spec: `
    session b
    step "b-take"    { RESERVE req-booking user-0001 sku-lab-01 UNTIL before-commit }
    step "b-commit"  { RESUME COMMIT }

    session d
    step "d-disable" { DISABLE sku-lab-01 UNTIL before-commit }
    step "d-commit"  { RESUME COMMIT }
    step "d-later"   { RESERVE req-later user-0003 sku-lab-01 }

    session w
    step "w-ask"     { RESERVE req-waiting user-0002 sku-lab-01 }

    permutation "b-take" "d-disable" "b-commit" "w-ask" "d-commit" "d-later"
  `,
  expect: {
    observations: () => ({ disabled: 1 }),
    relations(_params, { outcomes }) {
      const { HELD = 0, SOLD_OUT = 0, ...other } = outcomes;
      const problems: Problem[] = [];
      const unexpected = Object.keys(other);
      if (unexpected.length > 0)
        problems.push({
          check: 'outcomes',
          message: `${unexpected.join(', ')}: only HELD or SOLD_OUT expected`,
        });
      if (HELD + SOLD_OUT !== 3)
        problems.push({ check: 'outcomes', message: `${HELD + SOLD_OUT} answers for 3 bookings` });
      if (SOLD_OUT < 1)
        problems.push({ check: 'outcomes', message: 'SOLD_OUT 0: the booking after the disable was served' });
      return problems;
    },
    // The booking holds the resource FOR SHARE, which the disable's UPDATE waits for; the second booking's
    // FOR SHARE waits for the uncommitted UPDATE.
    blocking: { 'row-lock-count': ['d-disable', 'w-ask'] },
  },
});
