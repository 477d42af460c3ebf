/**
 * The order contract's designs and controls, driven directly against the embedded server (the harness does
 * not run the contract's cases yet): each answers the contract's operations as the model says when used one
 * call at a time, and the deterministic interleavings of the isolation-matrix chapter show what each gets
 * right or wrong — the sku-order designs queue opposite carts where the request-order control deadlocks
 * (40P01), the one-transaction-per-line control leaves a partial order when its session dies between lines,
 * and read-then-subtract loses an update (80 where 70 is right), each caught by the check its control names
 * and by no other. Every ordering is observed (a pause point reached, pg_blocking_pids), never slept on.
 */
import { describe, expect, it } from 'vitest';
import orderContention from '../fixtures/order/scenarios/order-contention.ts';
import { readOrdersBack } from '../harness/contracts/order/order-final-read.ts';
import { type OrderSent, orderInvariants } from '../harness/contracts/order/order-invariants.ts';
import { holdPointFor } from '../harness/contracts/order/order-scenario.ts';
import type { StockLine } from '../strategies/contract.ts';
import type { OrderDesign, OrderRequest } from '../strategies/order/contract.ts';
import linePerTransaction from '../strategies/order/controls/line-per-transaction.ts';
import readThenSubtract from '../strategies/order/controls/read-then-subtract.ts';
import requestOrder from '../strategies/order/controls/request-order.ts';
import frozenLedger from '../strategies/order/frozen-ledger.ts';
import serializable from '../strategies/order/serializable.ts';
import skuOrder from '../strategies/order/sku-order.ts';
import { useRunDatabase } from './db-fixture.ts';
import { request } from './order-carts.ts';
import { type OrderSession, orderSessions } from './order-sessions.ts';

const database = useRunDatabase();
const { admin } = database;
const { freshSchema, session, waitUntilBlocked } = orderSessions(database);

const SAFE = [skuOrder, serializable, frozenLedger];
const EVERY = [...SAFE, requestOrder, linePerTransaction, readThenSubtract];
const TWO_SKUS: StockLine[] = [
  { sku: 'sku-a', total: 10 },
  { sku: 'sku-b', total: 10 },
];
/** The isolation-matrix chapter's figures: 100 in stock, one order of 10 and one of 20; serially 70 remain. */
const LOST_UPDATE_STOCK: StockLine[] = [{ sku: 'sku-1001', total: 100 }];

/** The harness's read of the keys, and every invariant's problems (checks and messages). */
async function judged(design: OrderDesign, sent: OrderSent[], stock: StockLine[]) {
  const read = await readOrdersBack(
    admin(),
    design,
    sent.map((s) => s.request.requestKey),
    stock,
  );
  return { read, problems: orderInvariants(sent, read) };
}

const sentWith = (requests: OrderRequest[], answers: string[]): OrderSent[] =>
  requests.map((r, i) => ({ request: r, outcome: (answers[i] ?? '').split(' ')[0] ?? '' }));

describe('every order design, one call at a time', () => {
  it.each(EVERY.map((d) => [d.id, d] as const))('%s answers as the contract says', async (_, design) => {
    const schema = await freshSchema(design, `order_${design.id}`, TWO_SKUS);
    const s = await session(schema, design);
    const held = request('k-1', 'u-1', 'sku-b:2,sku-a:3');
    const asked: OrderRequest[] = [
      held,
      request('k-1', 'u-1', 'sku-a:3,sku-b:2'), // the same cart listed the other way: a replay
      request('k-1', 'u-1', 'sku-a:3'),
      request('k-2', 'u-2', 'sku-a:1,sku-b:9'),
      request('k-3', 'u-3', 'sku-a:1,sku-a:1'),
      request('k-4', 'u-4', 'sku-a:1,sku-zzz:1'),
      request('k-5', 'u-5', 'sku-a:7'),
    ];
    const answers: string[] = [];
    for (const r of asked) answers.push(await s.order(r));
    expect(answers).toEqual([
      'HELD',
      'REPLAY',
      'KEY_REUSED',
      'SOLD_OUT sku-b',
      'BAD_REQUEST',
      'BAD_REQUEST',
      'HELD',
    ]);
    expect(await design.lines(admin(), 'k-1')).toEqual([
      { sku: 'sku-a', qty: 3 },
      { sku: 'sku-b', qty: 2 },
    ]);
    expect(await design.lines(admin(), 'k-2')).toEqual([]);
    expect([await design.remaining(admin(), 'sku-a'), await design.remaining(admin(), 'sku-b')]).toEqual([
      0, 8,
    ]);

    const ctx = { db: admin(), pause: async () => undefined };
    expect(await design.release(ctx, 'k-1')).toBe(true);
    expect(await design.release(ctx, 'k-1')).toBe(false);
    expect(await design.status(admin(), 'k-1')).toBe('RELEASED');
    expect(await s.order(held)).toBe('REPLAY');
    await design.backdate?.(admin(), ['k-5']);
    expect(await design.expire(ctx)).toEqual({ orders: 1, units: 7 });
    expect(await design.expire(ctx)).toEqual({ orders: 0, units: 0 });
    expect(await design.status(admin(), 'k-5')).toBe('EXPIRED');
    expect([await design.remaining(admin(), 'sku-a'), await design.remaining(admin(), 'sku-b')]).toEqual([
      10, 10,
    ]);

    const { read, problems } = await judged(design, sentWith(asked, answers), TWO_SKUS);
    expect(problems).toEqual([]);
    expect(read.audit).toMatchObject({ heldKeys: [], keysWithManyOrders: 0, partialOrders: 0 });
  });
});

/** Two sessions order [a, b] and [b, a], each held at after-first-line; `first` is let go first. */
async function oppositeCarts(design: OrderDesign, label: string) {
  const schema = await freshSchema(design, label, TWO_SKUS);
  // A deadlock is looked for by the session that has waited deadlock_timeout: `second` after 50 ms, `first`
  // only after 100 s, so the victim is always `second` and the test waits no second for it.
  const first = await session(schema, design, {
    hold: 'after-first-line',
    settings: { deadlock_timeout: '100s' },
  });
  const second = await session(schema, design, {
    hold: 'after-first-line',
    settings: { deadlock_timeout: '50ms' },
  });
  const requests = [request('k-ab', 'u-1', 'sku-a:1,sku-b:1'), request('k-ba', 'u-2', 'sku-b:1,sku-a:1')];
  const answers = [first.order(requests[0] as OrderRequest)];
  await first.reached;
  return { first, second, requests, answers, start: () => second.order(requests[1] as OrderRequest) };
}

describe('opposite carts (the isolation-matrix chapter’s deadlock drill)', () => {
  it.each([skuOrder, frozenLedger].map((d) => [d.id, d] as const))(
    '%s queues the second cart behind the first on their first sku: both HELD, no deadlock',
    async (_, design) => {
      const { first, second, requests, answers, start } = await oppositeCarts(
        design,
        `opposite_${design.id}`,
      );
      answers.push(start());
      // Sorted, [b, a] starts with sku-a too, which the first session holds: the second waits, holding
      // nothing.
      await waitUntilBlocked(second.pid, first.pid);
      first.letGo();
      await second.reached;
      second.letGo();
      const told = await Promise.all(answers);
      expect(told).toEqual(['HELD', 'HELD']);
      const { read, problems } = await judged(design, sentWith(requests, told), TWO_SKUS);
      expect(problems).toEqual([]);
      expect([...read.skus.values()].map((s) => s.remaining)).toEqual([8, 8]);
    },
  );

  it('order-request-order deadlocks: one cart answered 40P01, the other HELD, caught by errors alone', async () => {
    const { first, second, requests, answers, start } = await oppositeCarts(requestOrder, 'opposite_request');
    answers.push(start());
    await second.reached; // second holds sku-b, first holds sku-a
    first.letGo();
    await waitUntilBlocked(first.pid, second.pid); // first now wants sku-b
    second.letGo(); // second wants sku-a: the cycle
    const told = await Promise.all(answers);
    expect(told).toEqual(['HELD', 'ERROR 40P01']);
    // The victim rolled back whole: nothing partial, nothing oversold, nothing adrift. Only the answer is
    // wrong, which the case's `errors` check counts (an exception the scenario did not cause).
    const { problems } = await judged(requestOrder, sentWith(requests, told), TWO_SKUS);
    expect(problems).toEqual([]);
    expect(requestOrder.caughtBy).toEqual({ 'order-opposite-carts': ['errors'] });
  });
});

describe('a crash between lines', () => {
  it('order-line-per-transaction killed at between-transactions leaves a partial order: allOrNothing alone', async () => {
    const schema = await freshSchema(linePerTransaction, 'crash_split', TWO_SKUS);
    const dying = await session(schema, linePerTransaction, { kill: 'between-transactions' });
    const asked = request('k-ab', 'u-1', 'sku-a:2,sku-b:3');
    const told = await dying.order(asked);
    expect(told).toBe('KILLED');
    const { read, problems } = await judged(linePerTransaction, sentWith([asked], [told]), TWO_SKUS);
    expect(read.keys.get('k-ab')).toEqual({ status: 'HELD', lines: [{ sku: 'sku-a', qty: 2 }] });
    expect(problems.map((p) => p.check)).toEqual(['allOrNothing']);
    expect(problems[0]?.message).toBe(
      'allOrNothing 1: orders that are not whole (k-ab HELD: holds sku-a:2 of sku-a:2,sku-b:3)',
    );
  });

  it.each(SAFE.map((d) => [d.id, d] as const))(
    '%s killed at before-commit leaves nothing',
    async (_, design) => {
      const schema = await freshSchema(design, `crash_${design.id}`, TWO_SKUS);
      const dying = await session(schema, design, { kill: 'before-commit' });
      const asked = request('k-ab', 'u-1', 'sku-a:2,sku-b:3');
      expect(await dying.order(asked)).toBe('KILLED');
      const { read, problems } = await judged(design, sentWith([asked], ['KILLED']), TWO_SKUS);
      expect(read.keys.get('k-ab')).toEqual({ status: 'NOT_FOUND', lines: [] });
      expect(problems).toEqual([]);
    },
  );
});

/** The lost-update drill: two orders of 10 and 20 both held at after-read, then let go one by one. */
async function bothReadFirst(design: OrderDesign, label: string) {
  const schema = await freshSchema(design, label, LOST_UPDATE_STOCK);
  const a = await session(schema, design, { hold: 'after-read' });
  const b = await session(schema, design, { hold: 'after-read' });
  const requests = [request('k-a', 'worker-a', 'sku-1001:10'), request('k-b', 'worker-b', 'sku-1001:20')];
  const answers = [a.order(requests[0] as OrderRequest), b.order(requests[1] as OrderRequest)];
  await Promise.all([a.reached, b.reached]);
  a.letGo();
  const toldA = await answers[0];
  b.letGo();
  return { requests, told: [toldA ?? '', await (answers[1] as Promise<string>)], b };
}

describe('lost update (the isolation-matrix chapter: 80 where 70 is right)', () => {
  it('order-read-then-subtract: both HELD, 80 remain beside 30 held of 100: drift alone', async () => {
    const { requests, told } = await bothReadFirst(readThenSubtract, 'lost_update');
    expect(told).toEqual(['HELD', 'HELD']);
    const { read, problems } = await judged(readThenSubtract, sentWith(requests, told), LOST_UPDATE_STOCK);
    expect(read.skus.get('sku-1001')?.remaining).toBe(80);
    expect(problems.map((p) => p.check)).toEqual(['drift']);
    expect(problems[0]?.message).toBe(
      'drift 1: skus whose stock and HELD orders disagree (sku-1001: 100 − 80 remaining − 30 held = -10)',
    );
  });

  it('order-serializable: the second write fails with 40001 and is retried on a new snapshot: 70', async () => {
    const { requests, told, b } = await bothReadFirst(serializable, 'serializable_retry');
    expect(told).toEqual(['HELD', 'HELD']);
    expect(b.retried).toEqual(['40001']);
    const { read, problems } = await judged(serializable, sentWith(requests, told), LOST_UPDATE_STOCK);
    expect(read.skus.get('sku-1001')?.remaining).toBe(70);
    expect(problems).toEqual([]);
  });

  it('order-serializable with attempts=1 gives up: GAVE_UP, nothing written', async () => {
    const once = serializable.configure?.({ attempts: 1 });
    if (!once) throw new Error('order-serializable has no knobs');
    const { requests, told } = await bothReadFirst(once, 'serializable_gave_up');
    expect(told).toEqual(['HELD', 'GAVE_UP']);
    const { read, problems } = await judged(once, sentWith(requests, told), LOST_UPDATE_STOCK);
    expect(read.skus.get('sku-1001')?.remaining).toBe(90);
    expect(read.keys.get('k-b')).toEqual({ status: 'NOT_FOUND', lines: [] });
    expect(problems).toEqual([]);
  });

  it('order-sku-order: the second order waits on the first one’s row and re-reads it: 70', async () => {
    const schema = await freshSchema(skuOrder, 'lost_update_sku_order', LOST_UPDATE_STOCK);
    const a = await session(schema, skuOrder, { hold: 'before-commit' });
    const b = await session(schema, skuOrder);
    const requests = [request('k-a', 'worker-a', 'sku-1001:10'), request('k-b', 'worker-b', 'sku-1001:20')];
    const answers = [a.order(requests[0] as OrderRequest)];
    await a.reached;
    answers.push(b.order(requests[1] as OrderRequest));
    await waitUntilBlocked(b.pid, a.pid);
    a.letGo();
    const told = await Promise.all(answers);
    expect(told).toEqual(['HELD', 'HELD']);
    const { read, problems } = await judged(skuOrder, sentWith(requests, told), LOST_UPDATE_STOCK);
    expect(read.skus.get('sku-1001')?.remaining).toBe(70);
    expect(problems).toEqual([]);
  });

  it('order-read-then-subtract oversells when three carts read before any writes', async () => {
    const stock: StockLine[] = [{ sku: 'sku-a', total: 10 }];
    const schema = await freshSchema(readThenSubtract, 'oversell', stock);
    const sessions: OrderSession[] = [];
    for (let i = 0; i < 3; i++)
      sessions.push(await session(schema, readThenSubtract, { hold: 'after-read' }));
    const requests = sessions.map((_, i) => request(`k-${i}`, `u-${i}`, 'sku-a:5'));
    const answers = sessions.map((s, i) => s.order(requests[i] as OrderRequest));
    await Promise.all(sessions.map((s) => s.reached));
    const told: string[] = [];
    for (const [i, s] of sessions.entries()) {
      s.letGo();
      told.push(await (answers[i] as Promise<string>));
    }
    expect(told).toEqual(['HELD', 'HELD', 'HELD']);
    const { problems } = await judged(readThenSubtract, sentWith(requests, told), stock);
    expect(problems.map((p) => p.check)).toEqual(['oversold', 'drift']);
  });
});

describe('the frozen ledger keeps books the audit checks', () => {
  it('a counter moved without its pair, or a ledger entry edited, is found (reconciled, ledgerReplayDrift)', async () => {
    const schema = await freshSchema(frozenLedger, 'books', TWO_SKUS);
    const s = await session(schema, frozenLedger);
    const asked = request('k-1', 'u-1', 'sku-a:2,sku-b:1');
    expect(await s.order(asked)).toBe('HELD');
    expect((await judged(frozenLedger, sentWith([asked], ['HELD']), TWO_SKUS)).problems).toEqual([]);
    // A release that forgot `available` (the frozen-stock chapter's reconciliation found one the day it
    // shipped).
    await admin().query("UPDATE order_account SET frozen = frozen - 2 WHERE sku = 'sku-a'");
    const { problems } = await judged(frozenLedger, sentWith([asked], ['HELD']), TWO_SKUS);
    expect(problems.map((p) => p.check)).toEqual(['reconciled', 'ledgerReplayDrift']);
  });
});

describe('overlapping carts under contention (the order-contention scenario, driven directly)', () => {
  /** Every client on its own session, started together; held at the scenario's point where declared. */
  async function contend(design: OrderDesign) {
    const { stock, clients } = orderContention;
    const schema = await freshSchema(design, `contention_${design.id}`, [...stock]);
    const hold = holdPointFor(orderContention, design.pausePoints.order);
    const sessions: OrderSession[] = [];
    for (const _ of clients) sessions.push(await session(schema, design, hold ? { hold } : {}));
    const answers = sessions.map((s, i) => s.order(clients[i] as OrderRequest));
    if (hold) {
      await Promise.all(sessions.map((s) => s.reached));
      for (const s of sessions) s.letGo();
    }
    const told = await Promise.all(answers);
    const counts: Record<string, number> = {};
    for (const t of told) counts[t.split(' ')[0] ?? ''] = (counts[t.split(' ')[0] ?? ''] ?? 0) + 1;
    return { counts, ...(await judged(design, sentWith([...clients], told), [...stock])) };
  }

  it.each(SAFE.map((d) => [d.id, d] as const))(
    '%s: HELD 20, SOLD_OUT 20, nothing left',
    async (_, design) => {
      const { counts, read, problems } = await contend(design);
      expect(counts).toEqual(orderContention.expect.outcomes);
      expect(Object.fromEntries([...read.skus].map(([sku, s]) => [sku, s.remaining]))).toEqual(
        orderContention.expect.remaining,
      );
      expect(problems).toEqual([]);
    },
  );

  it('order-read-then-subtract: every cart decided on stale stock, all 40 HELD: oversold and drift', async () => {
    const { counts, problems } = await contend(readThenSubtract);
    expect(counts).toEqual({ HELD: 40 });
    expect(problems.map((p) => p.check)).toEqual(['oversold', 'drift']);
  });
});
