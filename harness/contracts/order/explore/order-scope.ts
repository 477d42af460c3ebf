/**
 * The order contract's exhaustive scope (harness/explore/exhaustive.ts): every program of one or two
 * ORDERs over two skus of 2 units. The first orders under key k1 for user u1 (any other is a renaming) one
 * of three carts — [a, b], [b, a] (the same skus listed the other way) or 2 of a (all its stock) — to its
 * end, or stopped at each pause point the design declares and committed or killed there. The second sends
 * the first's cart again under k1 (a replay for u1, a reuse for u2), or one of the carts under k2 for u2,
 * to its end or stopped at each point and committed; after a stopped first it is sent after the first
 * ended, or while it is held (the concurrent pair at that point: opposite carts, both read before either
 * writes). Programs run one after another in a batch on one set of tables, each under its own tag: keys
 * and skus (the order model joins keys through skus, so no program's skus may meet another's).
 */
import type { OrderPausePoint } from '../../../../strategies/order/contract.ts';
import type { ScopeLanguage } from '../../../contract/contract-explore.ts';
import { type Resume, scheduledSteps } from '../../../explore/schedule.ts';
import { batched, batchTags, type TwoSessions, twoSessions } from '../../../explore/two-sessions.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import { type OrderOp, type OrderProgram, orderStepsOf } from './order-program.ts';

/** The longest programs of the order scope: two ORDERs already race at every pause point. */
export const ORDER_SCOPE_LENGTH = 2;

/** The carts, in sku letters and quantities: both skus either way round, or all of one. */
const CARTS = [
  [
    ['a', 1],
    ['b', 1],
  ],
  [
    ['b', 1],
    ['a', 1],
  ],
  [['a', 2]],
] as const;

interface SymbolicOrder {
  key: 'k1' | 'k2';
  user: 'u1' | 'u2';
  cart: number;
  pause?: OrderOp['pause'];
}

export interface OrderScopeProgram {
  orders: SymbolicOrder[];
  /** The second ORDER is sent while the first is held at its pause point. */
  inside: boolean;
}

// A rollback at a pause point leaves what a kill there leaves of a one-transaction order: kill covers both.
const FIRST_RESUMES: readonly Resume[] = ['commit', 'kill'];
function pauses(
  points: readonly OrderPausePoint[],
  resumes: readonly Resume[],
): (OrderOp['pause'] | undefined)[] {
  return [undefined, ...points.flatMap((at) => resumes.map((resume) => ({ at, resume })))];
}

function* scopePrograms(points: readonly OrderPausePoint[], maxLength: number): Generator<OrderScopeProgram> {
  const firsts = CARTS.flatMap((_, cart) =>
    pauses(points, FIRST_RESUMES).map(
      (pause): SymbolicOrder => ({ key: 'k1', user: 'u1', cart, ...(pause ? { pause } : {}) }),
    ),
  );
  for (const first of firsts) yield { orders: [first], inside: false };
  if (maxLength < 2) return;
  const secondsAfter = (first: SymbolicOrder): SymbolicOrder[] =>
    [
      { key: 'k1' as const, user: 'u1' as const, cart: first.cart },
      { key: 'k1' as const, user: 'u2' as const, cart: first.cart },
      ...CARTS.map((_, cart) => ({ key: 'k2' as const, user: 'u2' as const, cart })),
    ].flatMap((who) => pauses(points, ['commit']).map((pause) => (pause ? { ...who, pause } : who)));
  for (const first of firsts)
    for (const second of secondsAfter(first))
      for (const inside of first.pause ? [false, true] : [false]) yield { orders: [first, second], inside };
}

const cartOf = (cart: number, tag: string) =>
  (CARTS[cart] ?? []).map(([sku, qty]) => `${tag}sku-${sku}:${qty}`).join(',');

/** The program under `tag`: its ORDERs named, in two sessions, and the order of their steps. */
function rendered(p: OrderScopeProgram, tag: string): TwoSessions<OrderOp> {
  const ops = p.orders.map(
    (o): OrderOp => ({
      key: `${tag}${o.key}`,
      user: o.user,
      cart: cartOf(o.cart, tag),
      ...(o.pause ? { pause: o.pause } : {}),
    }),
  );
  return twoSessions(ops, p.inside, (op) => orderStepsOf(op).length);
}

/** Programs one after another on two sessions, each under its own tag (digits first: `07.k1`, `07.sku-a`). */
function batchOf(programs: readonly OrderScopeProgram[]): OrderProgram {
  const tags = batchTags(programs.length);
  const skus = tags.flatMap((tag) => [`${tag}sku-a`, `${tag}sku-b`]);
  return { ...batched(programs.map((p, i) => rendered(p, tags[i] ?? ''))), skus };
}

/** `s1: ORDER k1 u1 sku-a:1,sku-b:1 UNTIL after-read; s2: ORDER k2 u2 sku-a:2; s1: RESUME COMMIT`. */
function described(p: OrderScopeProgram): string {
  const steps = scheduledSteps(batchOf([p]), orderStepsOf).map(
    (s) => `s${s.session + 1}: ${s.body.replaceAll('0.', '')}`,
  );
  return steps.join('; ');
}

export function orderScope(ref: OrderDesignRef): ScopeLanguage<OrderScopeProgram, OrderProgram> {
  const points = ref.design.pausePoints.order;
  return {
    programs: (maxLength) => scopePrograms(points, Math.min(maxLength, ORDER_SCOPE_LENGTH)),
    length: (p) => p.orders.length,
    groupOf: () => 'orders',
    batch: batchOf,
    describe: described,
  };
}
