/**
 * Random programs for one design (fast-check arbitraries, so a failing program shrinks for free): up to 3
 * sessions of several operations each over 3 users, 3 request keys and 2 skus of 0–3 units, named by one
 * of the exhaustive scope's namings (reservation/names.ts: keys that differ in case, share 127 characters,
 * pass the API's limit, differ by spaces or unicode form, hold a LIKE pattern; skus alike); TTLs short
 * enough to run out during the program (with WAIT steps on the database clock), one second, and long
 * ones; 1–3 nodes with restarts; and every operation the design implements, stopped at the pause points
 * it declares and then committed, rolled back or killed there.
 */
import fc from 'fast-check';
import type { PausePoint, PausingOperation, Strategy } from '../../../../strategies/contract.ts';
import { pauseArbitrary } from '../../../explore/pause-arbitrary.ts';
import { NAMINGS, type Naming } from './names.ts';
import type { Pause, Program, ProgramOp } from './program.ts';

/** The plain names a program is drawn over; its naming renames them (renamed). */
const KEY_POOL = ['k1', 'k2', 'k3'] as const;
const USER_POOL = ['u1', 'u2', 'u3'] as const;
const SKU_POOL = ['sku-a', 'sku-b'] as const;
/** The hold an expire pair keeps beside the one that runs out (a key outside the pool). */
const KEPT_KEY = 'k9';

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
/** Mostly sku-a, where the program's stock is: sku-b is the second sku, or one the case has no stock for. */
const mostlyFirstSku = collidingPick(['sku-a', 'sku-a', 'sku-b']);
/** Short TTLs run out within a program's WAIT, a second's within two; the long one never does. */
const SHORT_TTL = 150;
const LONG_TTL = 60_000;
const TTL_POOL = [SHORT_TTL, 400, 1_000, LONG_TTL] as const;
const WAIT_POOL = [200, 500] as const;
/** The most nodes a program spreads its operations over. */
export const MAX_NODES = 3;

function pauseFor(strategy: Strategy, operation: PausingOperation): fc.Arbitrary<Pause | undefined> {
  return pauseArbitrary<PausePoint>(strategy.pausePoints[operation] ?? [], 2);
}

/** The operations a design can be given: reserve, reads and waits always; the rest where it has them. */
function operationArbitraries(strategy: Strategy): fc.Arbitrary<ProgramOp>[] {
  const key = collidingPick(KEY_POOL);
  const sku = mostlyFirstSku;
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
    reserve,
    fc.record({ op: fc.constant('status' as const), key }),
    fc.record({ op: fc.constant('remaining' as const), sku }),
    fc.record({ op: fc.constant('wait' as const), ms: fc.constantFrom(...WAIT_POOL) }),
  ];
  for (const op of ['confirm', 'release'] as const) {
    if (strategy[op]) arbitraries.push(withPause(fc.record({ op: fc.constant(op), key, node }), op));
  }
  if (strategy.expire) {
    const expire = withPause(fc.record({ op: fc.constant('expire' as const), node }), 'expire');
    arbitraries.push(expire, expire);
  }
  if (strategy.disable)
    arbitraries.push(withPause(fc.record({ op: fc.constant('disable' as const), sku, node }), 'disable'));
  if (strategy.backdate) arbitraries.push(fc.record({ op: fc.constant('backdate' as const), key }));
  arbitraries.push(fc.record({ op: fc.constant('restart' as const), node }));
  return arbitraries;
}

/** Most sessions a program has, and most operations it places. */
export const MAX_SESSIONS = 3;
const MAX_PLACED = 6;

/** An operation, and the session (0-based) it is placed in. */
interface Placed {
  session: number;
  op: ProgramOp;
}

/** The hold a pair's operation acts on, reserved in the first's session before it. */
interface SetUp {
  user: string;
  sku: string;
  ttlMs: number;
  node: number;
}

/**
 * What the pair's first operation needs the row to be in: a confirm or a release follows a reserve of its
 * key, an expire a short hold whose TTL has then run out (on the database clock) beside one that does not,
 * a node's restart a sale
 * on that node; a reserve needs nothing.
 */
function setUpFor(first: ProgramOp, key: string, setUp: SetUp): ProgramOp[] {
  const hold = (ttlMs: number) => ({ op: 'reserve' as const, key, ...setUp, ttlMs });
  if (first.op === 'confirm' || first.op === 'release') return [hold(setUp.ttlMs)];
  // A hold that outlives the program beside the one that runs out: units given back twice then show.
  if (first.op === 'expire')
    return [{ ...hold(LONG_TTL), key: KEPT_KEY }, hold(SHORT_TTL), { op: 'wait', ms: WAIT_POOL[0] }];
  if (first.op === 'restart') return [{ ...hold(setUp.ttlMs), node: first.node }];
  return [];
}

/**
 * What bugs of this kind take: the same operation twice — sent again (a replay, an expire or a release
 * run twice) or racing in another session — on a row in the state it acts on (setUpFor); for a reserve,
 * a rival on the same sku (another key, or the same user with another key); after a restart, another sale
 * on the restarted node. Each pair is placed
 * in two sessions or one, what sets it up in the first's session before it.
 */
function pairArbitrary(
  op: fc.Arbitrary<ProgramOp>,
  key: fc.Arbitrary<string>,
  setUp: fc.Arbitrary<SetUp>,
): fc.Arbitrary<Placed[]> {
  const session = fc.integer({ min: 0, max: MAX_SESSIONS - 1 });
  return fc
    .tuple(op, key, fc.boolean(), session, session, setUp)
    .map(([first, otherKey, sameUser, a, b, state]) => {
      const rivalUser = sameUser ? state.user : state.user === 'u1' ? 'u2' : 'u1';
      const second: ProgramOp =
        first.op === 'reserve' && otherKey !== first.key
          ? { ...first, key: otherKey, user: sameUser ? first.user : first.user === 'u1' ? 'u2' : 'u1' }
          : first.op === 'restart'
            ? { op: 'reserve', key: otherKey, ...state, user: rivalUser, node: first.node }
            : first;
      const before = setUpFor(first, 'key' in first ? first.key : otherKey, state);
      return [
        ...before.map((o) => ({ session: a, op: o })),
        { session: a, op: first },
        { session: b, op: second },
      ];
    });
}

/** The program with its plain keys, users and skus named by `naming` (others, like the kept hold's, as they are). */
function renamed(program: Program, naming: Naming): Program {
  const table = new Map<string, string>([
    ...KEY_POOL.map((k, i) => [k, naming.key.name(i, '')] as const),
    ...USER_POOL.map((u, i) => [u, naming.user.name(i, '')] as const),
    ...SKU_POOL.map((s, i) => [s, naming.sku.name(i, '')] as const),
  ]);
  const name = (n: string) => table.get(n) ?? n;
  const op = (o: ProgramOp): ProgramOp => ({
    ...o,
    ...('key' in o ? { key: name(o.key) } : {}),
    ...('user' in o ? { user: name(o.user) } : {}),
    ...('sku' in o ? { sku: name(o.sku) } : {}),
  });
  return {
    ...program,
    stock: program.stock.map((s) => ({ ...s, sku: name(s.sku) })),
    sessions: program.sessions.map((ops) => ops.map(op)),
  };
}

/** A random program under one of the scope's namings, the plain one first (what shrinking ends at). */
export function programArbitrary(strategy: Strategy): fc.Arbitrary<Program> {
  return fc
    .tuple(plainProgramArbitrary(strategy), fc.constantFrom(...NAMINGS))
    .map(([program, naming]) => renamed(program, naming));
}

/**
 * Flat, so that every part shrinks on its own (a `chain` would not): operations placed one by one or in
 * pairs over up to three sessions; an operation's node is 1–3 and runs on node ((n − 1) mod nodes) + 1 of
 * the program's count, so one node is what shrinking ends at.
 */
function plainProgramArbitrary(strategy: Strategy): fc.Arbitrary<Program> {
  const op = fc.oneof(...operationArbitraries(strategy));
  const single = fc.record({ session: fc.integer({ min: 0, max: MAX_SESSIONS - 1 }), op }).map((p) => [p]);
  const setUp = fc.record({
    user: collidingPick(USER_POOL),
    sku: mostlyFirstSku,
    ttlMs: fc.constantFrom(...TTL_POOL),
    node: fc.integer({ min: 1, max: MAX_NODES }),
  });
  const placed = fc.array(fc.oneof(single, pairArbitrary(op, collidingPick(KEY_POOL), setUp)), {
    minLength: 1,
    maxLength: MAX_PLACED,
  });
  return fc.record({
    stock: fc
      .tuple(
        // One unit most often: two sales of it are an oversell, one sale and a refusal the rest.
        fc.oneof(
          { arbitrary: fc.constant(1), weight: 2 },
          { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 1 },
        ),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      )
      .map(([a, b]) => [
        { sku: SKU_POOL[0], total: a },
        ...(b === undefined ? [] : [{ sku: SKU_POOL[1], total: b }]),
      ]),
    nodes: fc.integer({ min: 1, max: MAX_NODES }),
    sessions: placed.map((groups) => sessionsOf(groups.flat())),
    priorities: fc.array(fc.integer({ min: 0, max: 8 }), {
      minLength: MAX_SESSIONS,
      maxLength: MAX_SESSIONS,
    }),
    changes: fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 2 }),
  });
}

/** The placed operations as sessions, in placing order, leaving out sessions that got none. */
function sessionsOf(placed: readonly Placed[]): ProgramOp[][] {
  const sessions: ProgramOp[][] = Array.from({ length: MAX_SESSIONS }, () => []);
  for (const { session, op } of placed) sessions[session]?.push(op);
  return sessions.filter((ops) => ops.length > 0);
}
