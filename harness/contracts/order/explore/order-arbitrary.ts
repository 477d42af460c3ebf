/**
 * Random order programs (fast-check arbitraries, so a failing one shrinks for free): up to 3 sessions of up
 * to 5 ORDERs in all over the scope's alphabet (two skus of 2 units, quantities 1–2, two users, a few
 * keys, mostly the first two so that requests collide), stopped at one of the design's pause points now
 * and then and committed, rolled back or killed there; a PCT schedule over the sessions.
 */
import fc from 'fast-check';
import { pauseArbitrary } from '../../../explore/pause-arbitrary.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import { EXPLORED_SKUS, type OrderOp, type OrderProgram } from './order-program.ts';

export const MAX_ORDER_SESSIONS = 3;
const MAX_ORDERS = 5;

const line = fc.record({ sku: fc.constantFrom(...EXPLORED_SKUS), qty: fc.integer({ min: 1, max: 2 }) });

function orderArbitrary(ref: OrderDesignRef) {
  const pause = pauseArbitrary(ref.design.pausePoints.order, 1);
  return fc.record({
    session: fc.integer({ min: 0, max: MAX_ORDER_SESSIONS - 1 }),
    key: fc.oneof(
      { arbitrary: fc.constantFrom('k1', 'k2'), weight: 3 },
      { arbitrary: fc.constant('k3'), weight: 1 },
    ),
    user: fc.constantFrom('u1', 'u2'),
    lines: fc.uniqueArray(line, { minLength: 1, maxLength: 2, selector: (l) => l.sku }),
    pause,
  });
}

export function orderProgramArbitrary(ref: OrderDesignRef): fc.Arbitrary<OrderProgram> {
  return fc
    .record({
      orders: fc.array(orderArbitrary(ref), { minLength: 1, maxLength: MAX_ORDERS }),
      priorities: fc.array(fc.integer({ min: 0, max: 8 }), {
        minLength: MAX_ORDER_SESSIONS,
        maxLength: MAX_ORDER_SESSIONS,
      }),
      changes: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 2 }),
    })
    .map(({ orders, priorities, changes }) => {
      const sessions: OrderOp[][] = Array.from({ length: MAX_ORDER_SESSIONS }, () => []);
      for (const o of orders) {
        const op: OrderOp = {
          key: o.key,
          user: o.user,
          cart: o.lines.map((l) => `${l.sku}:${l.qty}`).join(','),
        };
        sessions[o.session]?.push(o.pause ? { ...op, pause: o.pause } : op);
      }
      const used = sessions.flatMap((ops, s) => (ops.length > 0 ? [s] : []));
      return {
        sessions: used.map((s) => sessions[s] as OrderOp[]),
        skus: [...EXPLORED_SKUS],
        priorities: used.map((s) => priorities[s] ?? 0),
        changes,
      };
    });
}
