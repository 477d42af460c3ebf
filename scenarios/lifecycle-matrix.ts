/**
 * Every operation of the contract on its own paths, over two skus: reserve, confirm, release, expire,
 * status and remaining — first call, replay of the same call, concurrent calls, and after each state a row
 * can be in (HELD, CONFIRMED, RELEASED, EXPIRED). After each end state the user reserves again (still
 * limited after CONFIRMED, free after RELEASED or EXPIRED), a REPLAY's status is checked against the row,
 * and the other sku's remaining is read to show it never moved. Each figure is an observation the run
 * compares with its expected value, so a design wrong in one cell fails there by name.
 */
import {
  defineScenario,
  LAB_SKU,
  type ScenarioParams,
  type ScriptContext,
  TTL_MS,
} from '../harness/scenario/scenario.ts';
import type { ReserveRequest } from '../strategies/contract.ts';

const OTHER_SKU = 'sku-lab-02';
const CONCURRENT = 4;

type Seen = Record<string, string | number>;

const request = (params: ScenarioParams, key: string, user: string, sku = LAB_SKU): ReserveRequest => ({
  requestKey: key,
  user,
  sku,
  ttlMs: params.ttlMs,
});

/** One reserve through the worker-thread driver: `OUTCOME` or `REPLAY <status>`. */
async function reserve(ctx: ScriptContext<Seen>, r: ReserveRequest): Promise<string> {
  const [answer] = await ctx.reserve([r]);
  if (!answer) return 'none';
  return answer.outcome === 'REPLAY' ? `REPLAY ${answer.status ?? '?'}` : answer.outcome;
}

/** The same call on CONCURRENT sessions at once: how many of them moved the row. */
async function concurrently(
  ctx: ScriptContext<Seen>,
  call: (session: Parameters<ScriptContext<Seen>['confirm']>[0]) => Promise<boolean>,
): Promise<number> {
  const moved = await ctx.withSessions(CONCURRENT, (sessions) => Promise.all(sessions.map(call)));
  return moved.filter(Boolean).length;
}

const EXPECTED: Seen = {
  'reserve k1 (u1, A)': 'HELD',
  'reserve k4 (u1, B)': 'HELD',
  'remaining A after 3 holds': 7,
  'remaining B after 1 hold': 9,
  'replay reserve k1': 'REPLAY HELD',
  'status k1 held': 'HELD',
  'confirm k1': 'true',
  'replay confirm k1': 'false',
  'status k1 confirmed': 'CONFIRMED',
  'replay reserve k1 confirmed': 'REPLAY CONFIRMED',
  'u1 again on A while confirmed': 'USER_LIMIT',
  'release k1 confirmed': 'false',
  'remaining A after confirm': 7,
  'release k2': 'true',
  'replay release k2': 'false',
  'status k2 released': 'RELEASED',
  'replay reserve k2 released': 'REPLAY RELEASED',
  'confirm k2 released': 'false',
  'remaining A after release': 8,
  'remaining B after release on A': 9,
  'u2 again on A after release': 'HELD',
  'remaining B before expire': 8,
  'expire k3 (A only)': 1,
  'replay expire': 0,
  'status k3 expired': 'EXPIRED',
  'replay reserve k3 expired': 'REPLAY EXPIRED',
  'confirm k3 expired': 'false',
  'release k3 expired': 'false',
  'remaining A after expire': 8,
  'remaining B after expire on A': 8,
  'u3 again on A after expire': 'HELD',
  'concurrent confirms of k5 that moved it': 1,
  'concurrent releases of k6 that moved it': 1,
  'remaining A after concurrent calls': 6,
  'release k4 on B': 'true',
  'remaining B after release on B': 9,
  'remaining A after release on B': 6,
  'expire one hold on each sku in one job': 2,
  'remaining A after expiring on both': 6,
  'remaining B after expiring on both': 10,
  'status of a key never sent': 'NOT_FOUND',
};

export default defineScenario<Seen>({
  id: 'lifecycle-matrix',
  kind: 'script',
  summary: 'each operation first, replayed, concurrent and after every row state, over two skus',
  input: {
    clients: 1,
    stock: [
      { sku: LAB_SKU, total: 10 },
      { sku: OTHER_SKU, total: 10 },
    ],
    user: 'user-0001',
    ttlMs: TTL_MS,
  },
  operations: ['confirm', 'release', 'expire', 'backdate'],
  async run(ctx) {
    const p = ctx.params;
    const r = (key: string, user: string, sku?: string) => request(p, key, user, sku);
    // A cell that throws is recorded as `ERROR <sqlstate>`, so it fails by name and the later cells still run.
    const seen = async (name: string, cell: () => Promise<string | number | boolean>) => {
      let value: string | number | boolean;
      try {
        value = await cell();
      } catch (error: unknown) {
        const code =
          typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'no code';
        value = `ERROR ${code}`;
      }
      ctx.observe(name, typeof value === 'boolean' ? String(value) : value);
    };
    const one = <T>(work: (s: Parameters<ScriptContext<Seen>['confirm']>[0]) => Promise<T>) =>
      ctx.withSessions(1, ([s]) => {
        if (!s) throw new Error('no session');
        return work(s);
      });

    // First calls: three holds on A (three users), one on B by the first user.
    await seen('reserve k1 (u1, A)', () => reserve(ctx, r('k1', 'u1')));
    await reserve(ctx, r('k2', 'u2'));
    await reserve(ctx, r('k3', 'u3'));
    await seen('reserve k4 (u1, B)', () => reserve(ctx, r('k4', 'u1', OTHER_SKU)));
    await seen('remaining A after 3 holds', () => ctx.remaining(LAB_SKU));
    await seen('remaining B after 1 hold', () => ctx.remaining(OTHER_SKU));
    await seen('replay reserve k1', () => reserve(ctx, r('k1', 'u1')));
    await seen('status k1 held', () => ctx.status('k1'));

    // CONFIRMED: a replayed confirm moves nothing, the user is still limited, a release does nothing.
    await seen('confirm k1', () => one((s) => ctx.confirm(s, 'k1')));
    await seen('replay confirm k1', () => one((s) => ctx.confirm(s, 'k1')));
    await seen('status k1 confirmed', () => ctx.status('k1'));
    await seen('replay reserve k1 confirmed', () => reserve(ctx, r('k1', 'u1')));
    await seen('u1 again on A while confirmed', () => reserve(ctx, r('k1b', 'u1')));
    await seen('release k1 confirmed', () => one((s) => ctx.release(s, 'k1')));
    await seen('remaining A after confirm', () => ctx.remaining(LAB_SKU));

    // RELEASED: one unit back on A only, once; the user may reserve again.
    await seen('release k2', () => one((s) => ctx.release(s, 'k2')));
    await seen('replay release k2', () => one((s) => ctx.release(s, 'k2')));
    await seen('status k2 released', () => ctx.status('k2'));
    await seen('replay reserve k2 released', () => reserve(ctx, r('k2', 'u2')));
    await seen('confirm k2 released', () => one((s) => ctx.confirm(s, 'k2')));
    await seen('remaining A after release', () => ctx.remaining(LAB_SKU));
    await seen('remaining B after release on A', () => ctx.remaining(OTHER_SKU));
    await seen('u2 again on A after release', () => reserve(ctx, r('k2b', 'u2')));

    // EXPIRED: the job returns the unit once, to its own sku only; nothing else moves the row afterwards.
    await reserve(ctx, r('k7', 'u7', OTHER_SKU));
    await seen('remaining B before expire', () => ctx.remaining(OTHER_SKU));
    await ctx.backdate(['k3']);
    await seen('expire k3 (A only)', () => one((s) => ctx.expire(s)));
    await seen('replay expire', () => one((s) => ctx.expire(s)));
    await seen('status k3 expired', () => ctx.status('k3'));
    await seen('replay reserve k3 expired', () => reserve(ctx, r('k3', 'u3')));
    await seen('confirm k3 expired', () => one((s) => ctx.confirm(s, 'k3')));
    await seen('release k3 expired', () => one((s) => ctx.release(s, 'k3')));
    await seen('remaining A after expire', () => ctx.remaining(LAB_SKU));
    await seen('remaining B after expire on A', () => ctx.remaining(OTHER_SKU));
    await seen('u3 again on A after expire', () => reserve(ctx, r('k3b', 'u3')));

    // Concurrent calls on one row: exactly one of them moves it.
    await ctx.reserve([r('k5', 'u5'), r('k6', 'u6')]);
    await seen('concurrent confirms of k5 that moved it', () =>
      concurrently(ctx, (s) => ctx.confirm(s, 'k5')),
    );
    await seen('concurrent releases of k6 that moved it', () =>
      concurrently(ctx, (s) => ctx.release(s, 'k6')),
    );
    await seen('remaining A after concurrent calls', () => ctx.remaining(LAB_SKU));

    // An operation on B moves only B.
    await seen('release k4 on B', () => one((s) => ctx.release(s, 'k4')));
    await seen('remaining B after release on B', () => ctx.remaining(OTHER_SKU));
    await seen('remaining A after release on B', () => ctx.remaining(LAB_SKU));
    // One job expiring a hold on each sku gives each unit back to its own sku.
    await reserve(ctx, r('k8', 'u8'));
    await ctx.backdate(['k7', 'k8']);
    await seen('expire one hold on each sku in one job', () => one((s) => ctx.expire(s)));
    await seen('remaining A after expiring on both', () => ctx.remaining(LAB_SKU));
    await seen('remaining B after expiring on both', () => ctx.remaining(OTHER_SKU));
    await seen('status of a key never sent', () => ctx.status('k-never-sent'));
  },
  expect: {
    outcomes: () => ({ HELD: 10, REPLAY: 4, USER_LIMIT: 1 }),
    observations: () => EXPECTED,
  },
});
