/**
 * Random programs for one design (fast-check arbitraries, so a failing program shrinks for free): 2–4
 * sessions of 1–5 operations each over 2–4 users and a pool of request keys that includes keys differing
 * only in letter case, a key of the API's full length and one of its odd characters; 1–2 skus of 1–3
 * units; TTLs short enough to run out during the program (with WAIT steps on the database clock) and long
 * ones; 1–3 nodes with restarts; and every operation the design implements, stopped at the pause points it
 * declares and then committed, rolled back or killed there.
 */
import fc from 'fast-check';
import type { PausePoint, PausingOperation, Strategy } from '../../strategies/contract.ts';
import type { Pause, Program, ProgramOp } from './program.ts';

/** Keys that differ only in case, the API's longest (128 characters) and its odd characters. */
export const KEY_POOL = ['k1', 'K1', 'k2', 'kA', 'Ka', `k-${'x'.repeat(126)}`, 'k.3:@_-'] as const;
const USER_POOL = ['u1', 'u2', 'U1', 'u3'] as const;

/**
 * Mostly the first two of a pool, so that a few operations collide (one key replayed, reused by another
 * user, its case varied; one user twice on a sku), and now and then any of it.
 */
function collidingPick<T>(pool: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...pool.slice(0, 2)), weight: 3 },
    { arbitrary: fc.constantFrom(...pool), weight: 1 },
  );
}
const SKU_POOL = ['sku-a', 'sku-b'] as const;
/** Short TTLs run out within a program's WAIT; the long one never does. */
const TTL_POOL = [150, 400, 60_000] as const;
const WAIT_POOL = [200, 500] as const;
/** The most nodes a program spreads its operations over. */
export const MAX_NODES = 3;

function pauseFor(strategy: Strategy, operation: PausingOperation): fc.Arbitrary<Pause | undefined> {
  const points = strategy.pausePoints[operation] ?? [];
  if (points.length === 0) return fc.constant(undefined);
  const pause = fc.record({
    at: fc.constantFrom<PausePoint>(...points),
    then: fc.constantFrom('commit' as const, 'rollback' as const, 'kill' as const),
  });
  return fc.option(pause, { nil: undefined, freq: 2 });
}

/** The operations a design can be given: reserve, reads and waits always; the rest where it has them. */
function operationArbitraries(strategy: Strategy): fc.Arbitrary<ProgramOp>[] {
  const key = collidingPick(KEY_POOL);
  const sku = fc.constantFrom(...SKU_POOL);
  const node = fc.integer({ min: 1, max: MAX_NODES });
  const withPause = <T extends object>(op: fc.Arbitrary<T>, operation: PausingOperation) =>
    fc.tuple(op, pauseFor(strategy, operation)).map(([o, pause]) => (pause ? { ...o, pause } : o));
  const reserve = withPause(
    fc.record({
      op: fc.constant('reserve' as const),
      key,
      user: collidingPick(USER_POOL),
      sku,
      ttlMs: fc.constantFrom(...TTL_POOL),
      node,
    }),
    'reserve',
  );
  const arbitraries: fc.Arbitrary<ProgramOp>[] = [
    reserve,
    reserve,
    reserve,
    fc.record({ op: fc.constant('status' as const), key }),
    fc.record({ op: fc.constant('remaining' as const), sku }),
    fc.record({ op: fc.constant('wait' as const), ms: fc.constantFrom(...WAIT_POOL) }),
  ];
  for (const op of ['confirm', 'release'] as const) {
    if (strategy[op]) arbitraries.push(withPause(fc.record({ op: fc.constant(op), key, node }), op));
  }
  if (strategy.expire)
    arbitraries.push(withPause(fc.record({ op: fc.constant('expire' as const), node }), 'expire'));
  if (strategy.disable)
    arbitraries.push(withPause(fc.record({ op: fc.constant('disable' as const), sku, node }), 'disable'));
  if (strategy.backdate) arbitraries.push(fc.record({ op: fc.constant('backdate' as const), key }));
  arbitraries.push(fc.record({ op: fc.constant('restart' as const), node }));
  return arbitraries;
}

/**
 * Flat, so that every part shrinks on its own (a `chain` would not): an operation's node is 1–3 and runs
 * on node ((n − 1) mod nodes) + 1 of the program's count, so one node is what shrinking ends at.
 */
export function programArbitrary(strategy: Strategy): fc.Arbitrary<Program> {
  const op = fc.oneof(...operationArbitraries(strategy));
  return fc.record({
    stock: fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }))
      .map(([a, b]) => [
        { sku: 'sku-a', total: a },
        ...(b === undefined ? [] : [{ sku: 'sku-b', total: b }]),
      ]),
    nodes: fc.integer({ min: 1, max: MAX_NODES }),
    sessions: fc.array(fc.array(op, { minLength: 1, maxLength: 5 }), { minLength: 2, maxLength: 4 }),
    priorities: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 4, maxLength: 4 }),
    changes: fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 2 }),
  });
}
