/**
 * Random payment programs (fast-check arbitraries, so a failing one shrinks for free): up to 3 sessions of
 * up to 6 PAYs in all, over two keys of one of the scope's shapes (pay-scope.ts) and a third plain one,
 * mostly the first two so that requests collide; each PAY with the payment drill's payload or one field of it
 * changed, stopped at one of the design's pause points now and then and committed, rolled back or killed
 * there; a PCT schedule over the sessions (harness/explore/schedule.ts).
 */
import fc from 'fast-check';
import { pauseArbitrary } from '../../../explore/pause-arbitrary.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import { PAYLOADS, type PayloadId, type PayOp, type PayProgram } from './pay-program.ts';
import { KEY_SHAPES } from './pay-scope.ts';

export const MAX_PAY_SESSIONS = 3;
const MAX_PAYS = 6;

/** Mostly the first two of a pool, now and then any of it. */
function collidingPick<T>(pool: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...pool.slice(0, 2)), weight: 3 },
    { arbitrary: fc.constantFrom(...pool), weight: 1 },
  );
}

function payArbitrary(ref: PaymentDesignRef) {
  const pause = pauseArbitrary(ref.design.pausePoints.pay, 2);
  return fc.record({
    session: fc.integer({ min: 0, max: MAX_PAY_SESSIONS - 1 }),
    key: collidingPick([0, 1, 2] as const),
    payload: fc.oneof(
      { arbitrary: fc.constant<PayloadId>('base'), weight: 3 },
      { arbitrary: fc.constantFrom(...(Object.keys(PAYLOADS) as PayloadId[])), weight: 1 },
    ),
    pause,
  });
}

export function payProgramArbitrary(ref: PaymentDesignRef): fc.Arbitrary<PayProgram> {
  return fc
    .record({
      pays: fc.array(payArbitrary(ref), { minLength: 1, maxLength: MAX_PAYS }),
      shape: fc.constantFrom(...KEY_SHAPES),
      priorities: fc.array(fc.integer({ min: 0, max: 8 }), {
        minLength: MAX_PAY_SESSIONS,
        maxLength: MAX_PAY_SESSIONS,
      }),
      changes: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 2 }),
    })
    .map(({ pays, shape, priorities, changes }) => {
      const keys = [...shape.keys, 'k3'];
      const sessions: PayOp[][] = Array.from({ length: MAX_PAY_SESSIONS }, () => []);
      pays.forEach((p, i) => {
        const op: PayOp = { key: keys[p.key] as string, payload: p.payload, paymentId: `pay-${i + 1}` };
        sessions[p.session]?.push(p.pause ? { ...op, pause: p.pause } : op);
      });
      const used = sessions.flatMap((ops, s) => (ops.length > 0 ? [s] : []));
      return {
        sessions: used.map((s) => sessions[s] as PayOp[]),
        priorities: used.map((s) => priorities[s] ?? 0),
        changes,
      };
    });
}
