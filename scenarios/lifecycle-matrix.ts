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
} from '../harness/contracts/reservation/case/scenario.ts';
import type { ReserveRequest } from '../strategies/contract.ts';

const OTHER_SKU = 'sku-lab-02';
const CONCURRENT = 4;

type Seen = Record<string, string | number>;
type Ctx = ScriptContext<Seen>;
type Session = Parameters<Ctx['confirm']>[0];

/** A figure the walk reads; a boolean is observed as `true` / `false`. */
type Read = (ctx: Ctx) => Promise<string | number | boolean>;

/**
 * One step of the walk: an action whose answer is not judged, or an observation with the value a safe
 * design must show there.
 */
type Step =
  | { act: (ctx: Ctx) => Promise<unknown> }
  | { observe: string; expected: string | number; read: Read };

const act = (work: (ctx: Ctx) => Promise<unknown>): Step => ({ act: work });
const check = (observe: string, expected: string | number, read: Read): Step => ({ observe, expected, read });

const request = (params: ScenarioParams, key: string, user: string, sku = LAB_SKU): ReserveRequest => ({
  requestKey: key,
  user,
  sku,
  ttlMs: params.ttlMs,
});

/**
 * The ttl of the holds backdated later, for a design without the hook (ctx.shortHolds): k3 runs out first;
 * k7 must outlast k3's wait and the expire runs after it, k8 goes with it.
 */
const SHORT_TTL: Readonly<Record<string, number>> = { k3: 1_000, k7: 8_000, k8: 8_000 };

/** One reserve through the worker-thread driver: `OUTCOME` or `REPLAY <status>`. */
async function reserve(ctx: Ctx, key: string, user: string, sku?: string): Promise<string> {
  const sent = request(ctx.params, key, user, sku);
  const short = SHORT_TTL[key];
  const [answer] = await ctx.reserve(short === undefined ? [sent] : ctx.shortHolds([sent], short));
  if (!answer) return 'none';
  return answer.outcome === 'REPLAY' ? `REPLAY ${answer.status ?? '?'}` : answer.outcome;
}

/** A call on one session of its own. */
function one<T>(ctx: Ctx, work: (session: Session) => Promise<T>): Promise<T> {
  return ctx.withSessions(1, ([s]) => {
    if (!s) throw new Error('no session');
    return work(s);
  });
}

/** The same call on CONCURRENT sessions at once: how many of them moved the row. */
async function concurrently(ctx: Ctx, call: (session: Session) => Promise<boolean>): Promise<number> {
  const moved = await ctx.withSessions(CONCURRENT, (sessions) => Promise.all(sessions.map(call)));
  return moved.filter(Boolean).length;
}

const remainingA = (ctx: Ctx) => ctx.remaining(LAB_SKU);
const remainingB = (ctx: Ctx) => ctx.remaining(OTHER_SKU);

/** First calls: three holds on A (three users), one on B by the first user. */
const FIRST_CALLS: Step[] = [
  check('reserve k1 (u1, A)', 'HELD', (ctx) => reserve(ctx, 'k1', 'u1')),
  act((ctx) => reserve(ctx, 'k2', 'u2')),
  act((ctx) => reserve(ctx, 'k3', 'u3')),
  check('reserve k4 (u1, B)', 'HELD', (ctx) => reserve(ctx, 'k4', 'u1', OTHER_SKU)),
  check('remaining A after 3 holds', 7, remainingA),
  check('remaining B after 1 hold', 9, remainingB),
  check('replay reserve k1', 'REPLAY HELD', (ctx) => reserve(ctx, 'k1', 'u1')),
  check('status k1 held', 'HELD', (ctx) => ctx.status('k1')),
];

/** CONFIRMED: a replayed confirm moves nothing, the user is still limited, a release does nothing. */
const CONFIRMED: Step[] = [
  check('confirm k1', 'true', (ctx) => one(ctx, (s) => ctx.confirm(s, 'k1'))),
  check('replay confirm k1', 'false', (ctx) => one(ctx, (s) => ctx.confirm(s, 'k1'))),
  check('status k1 confirmed', 'CONFIRMED', (ctx) => ctx.status('k1')),
  check('replay reserve k1 confirmed', 'REPLAY CONFIRMED', (ctx) => reserve(ctx, 'k1', 'u1')),
  check('u1 again on A while confirmed', 'USER_LIMIT', (ctx) => reserve(ctx, 'k1b', 'u1')),
  check('release k1 confirmed', 'false', (ctx) => one(ctx, (s) => ctx.release(s, 'k1'))),
  check('remaining A after confirm', 7, remainingA),
];

/** RELEASED: one unit back on A only, once; the user may reserve again. */
const RELEASED: Step[] = [
  check('release k2', 'true', (ctx) => one(ctx, (s) => ctx.release(s, 'k2'))),
  check('replay release k2', 'false', (ctx) => one(ctx, (s) => ctx.release(s, 'k2'))),
  check('status k2 released', 'RELEASED', (ctx) => ctx.status('k2')),
  check('replay reserve k2 released', 'REPLAY RELEASED', (ctx) => reserve(ctx, 'k2', 'u2')),
  check('confirm k2 released', 'false', (ctx) => one(ctx, (s) => ctx.confirm(s, 'k2'))),
  check('remaining A after release', 8, remainingA),
  check('remaining B after release on A', 9, remainingB),
  check('u2 again on A after release', 'HELD', (ctx) => reserve(ctx, 'k2b', 'u2')),
];

/** EXPIRED: the job returns the unit once, to its own sku only; nothing else moves the row afterwards. */
const EXPIRED: Step[] = [
  act((ctx) => reserve(ctx, 'k7', 'u7', OTHER_SKU)),
  check('remaining B before expire', 8, remainingB),
  act((ctx) => ctx.backdate(['k3'])),
  check('expire k3 (A only)', 1, (ctx) => one(ctx, (s) => ctx.expire(s))),
  check('replay expire', 0, (ctx) => one(ctx, (s) => ctx.expire(s))),
  check('status k3 expired', 'EXPIRED', (ctx) => ctx.status('k3')),
  check('replay reserve k3 expired', 'REPLAY EXPIRED', (ctx) => reserve(ctx, 'k3', 'u3')),
  check('confirm k3 expired', 'false', (ctx) => one(ctx, (s) => ctx.confirm(s, 'k3'))),
  check('release k3 expired', 'false', (ctx) => one(ctx, (s) => ctx.release(s, 'k3'))),
  check('remaining A after expire', 8, remainingA),
  check('remaining B after expire on A', 8, remainingB),
  check('u3 again on A after expire', 'HELD', (ctx) => reserve(ctx, 'k3b', 'u3')),
];

/** Concurrent calls on one row: exactly one of them moves it. */
const CONCURRENT_CALLS: Step[] = [
  act((ctx) => ctx.reserve([request(ctx.params, 'k5', 'u5'), request(ctx.params, 'k6', 'u6')])),
  check('concurrent confirms of k5 that moved it', 1, (ctx) =>
    concurrently(ctx, (s) => ctx.confirm(s, 'k5')),
  ),
  check('concurrent releases of k6 that moved it', 1, (ctx) =>
    concurrently(ctx, (s) => ctx.release(s, 'k6')),
  ),
  check('remaining A after concurrent calls', 6, remainingA),
];

/** An operation on B moves only B; one job expiring a hold on each sku gives each unit back to its own sku. */
const ACROSS_SKUS: Step[] = [
  check('release k4 on B', 'true', (ctx) => one(ctx, (s) => ctx.release(s, 'k4'))),
  check('remaining B after release on B', 9, remainingB),
  check('remaining A after release on B', 6, remainingA),
  act((ctx) => reserve(ctx, 'k8', 'u8')),
  act((ctx) => ctx.backdate(['k7', 'k8'])),
  check('expire one hold on each sku in one job', 2, (ctx) => one(ctx, (s) => ctx.expire(s))),
  check('remaining A after expiring on both', 6, remainingA),
  check('remaining B after expiring on both', 10, remainingB),
  check('status of a key never sent', 'NOT_FOUND', (ctx) => ctx.status('k-never-sent')),
];

const STEPS: Step[] = [
  ...FIRST_CALLS,
  ...CONFIRMED,
  ...RELEASED,
  ...EXPIRED,
  ...CONCURRENT_CALLS,
  ...ACROSS_SKUS,
];

/** A read that throws is recorded as `ERROR <sqlstate>`, so it fails by name and the later steps still run. */
async function observed(ctx: Ctx, read: Read): Promise<string | number> {
  let value: string | number | boolean;
  try {
    value = await read(ctx);
  } catch (error: unknown) {
    const code =
      typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'no code';
    value = `ERROR ${code}`;
  }
  return typeof value === 'boolean' ? String(value) : value;
}

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
    nodes: 2,
  },
  operations: ['confirm', 'release', 'expire'],
  async run(ctx) {
    for (const step of STEPS) {
      if ('act' in step) await step.act(ctx);
      else ctx.observe(step.observe, await observed(ctx, step.read));
    }
  },
  expect: {
    outcomes: () => ({ HELD: 10, REPLAY: 4, USER_LIMIT: 1 }),
    observations: () =>
      Object.fromEntries(STEPS.flatMap((step) => ('observe' in step ? [[step.observe, step.expected]] : []))),
  },
});
