/**
 * The contract's disable "waits for reservations in flight": once it has returned, no booking of the sku
 * commits. Listed: a booking is held at `before-commit` (its transaction open, nothing committed); the
 * disable runs to its end, through its commit; the booking is let go on; a booking after the disable is
 * refused. A design whose disable waits for the booking (row-lock-count: the booking holds the resource
 * FOR SHARE, which the disable's UPDATE waits for) answers only once the booking has committed. A design
 * whose disable does not wait returns first, and the booking then commits HELD: `heldAfterDisable`,
 * which the harness judges for every design from its own clock (the disable's answer came before the
 * booking was let go on). No answer count shows it: HELD 1, SOLD_OUT 1 either way, and linearizability
 * allows it (the booking was in flight when the disable began).
 *
 * Who wins depends on the order (a disable first refuses the booking), so with `--permutations all` the
 * answer counts judge the listed order only; every order is judged on the invariants, `heldAfterDisable`
 * and the relations: the disable disables the sku once, every answer is HELD or SOLD_OUT, the booking
 * after the disable (same session) is refused.
 */
import { defineScenario, LAB_SKU, type Problem, TTL_MS } from '../harness/scenario/scenario.ts';

export default defineScenario<{ disabled: number }>({
  id: 'disable-in-flight',
  kind: 'interleaving',
  summary: 'a disable while a booking is in flight returns only after the booking ended (LabReserve)',
  input: { clients: 2, stock: [{ sku: LAB_SKU, total: 5 }], user: 'user-0001', ttlMs: TTL_MS },
  operations: ['disable'],
  requires: [{ operation: 'reserve', anyOf: ['before-commit'] }],
  spec: `
    session b
    step "b-take"    { RESERVE req-booking user-0001 sku-lab-01 UNTIL before-commit }
    step "b-commit"  { RESUME COMMIT }

    session d
    step "d-disable" { DISABLE sku-lab-01 }
    step "d-later"   { RESERVE req-later user-0002 sku-lab-01 }

    permutation "b-take" "d-disable" "b-commit" "d-later"
  `,
  expect: {
    outcomes: () => ({ HELD: 1, SOLD_OUT: 1 }),
    observations: () => ({ disabled: 1 }),
    orderDependent: true,
    relations(_params, { outcomes }) {
      const { HELD = 0, SOLD_OUT = 0, ...other } = outcomes;
      const problems: Problem[] = [];
      const unexpected = Object.keys(other);
      if (unexpected.length > 0)
        problems.push({
          check: 'outcomes',
          message: `${unexpected.join(', ')}: only HELD or SOLD_OUT expected`,
        });
      if (SOLD_OUT < 1)
        problems.push({ check: 'outcomes', message: 'SOLD_OUT 0: the booking after the disable was served' });
      return problems;
    },
    // What row-lock-count was seen doing; any design is judged by heldAfterDisable.
    blocking: { 'row-lock-count': ['d-disable'] },
  },
});
