/**
 * The order contract's harness side, with no database: the sequential model answers every call by a rule
 * (its text held to docs/contract.md's by test/contract-rules.test.ts); the linearizability search (the one
 * every contract shares) takes the model and accepts or refuses hand-made histories of overlapping carts;
 * every invariant fires on a hand-made read that breaks it and on nothing else; and every order scenario is
 * data the contract accepts — its spec's steps parse, and the model walked along its permutation gives
 * exactly the answers it expects.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OrderFinalRead, OrderKeyReading } from '../harness/contracts/order/order-final-read.ts';
import type { OrderAnswer, OrderCall, TimedOrderCall } from '../harness/contracts/order/order-history.ts';
import { type OrderSent, orderInvariants } from '../harness/contracts/order/order-invariants.ts';
import { orderModel, orderModelResults, sameOrderAnswer } from '../harness/contracts/order/order-model.ts';
import type { OrderScenario } from '../harness/contracts/order/order-scenario.ts';
import { OrderState } from '../harness/contracts/order/order-state.ts';
import { orderCallOf, parseOrderStep } from '../harness/contracts/order/order-steps.ts';
import type { HistoryOperation } from '../harness/history/history.ts';
import { searchLinearization } from '../harness/history/linearizability.ts';
import type { SearchOperation } from '../harness/history/search-operation.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import type { OrderAudit } from '../strategies/order/contract.ts';
import { cart, request } from './order-carts.ts';

const TOTALS = new Map([
  ['sku-a', 3],
  ['sku-b', 2],
]);

let clock = 0;
const at = (call: OrderCall): TimedOrderCall => {
  clock += 1;
  return { id: clock, call, db: { from: clock, to: clock } };
};

/** Applies the model's only answer (or the one with `rule`) and returns it with its rule. */
function step(state: OrderState, call: OrderCall, wanted?: OrderAnswer) {
  const results = orderModelResults(state, at(call), wanted, { withoutGaveUp: true });
  const [result] = results;
  if (!result) throw new Error(`no answer for ${JSON.stringify(call)}`);
  state.apply(result.changes);
  return { rule: result.rule, answer: result.answer, all: results };
}

describe('the order model', () => {
  it('holds a whole cart, replays it in any line order, and refuses what the contract refuses', () => {
    const s = new OrderState(TOTALS);
    const order = (key: string, user: string, lines: string) =>
      step(s, { op: 'order', request: request(key, user, lines) });
    expect(order('k1', 'u1', 'sku-b:1,sku-a:2')).toMatchObject({
      rule: 'order.held',
      answer: { outcome: 'HELD' },
    });
    expect(order('k1', 'u1', 'sku-a:2,sku-b:1')).toMatchObject({
      rule: 'order.recorded',
      answer: { outcome: 'REPLAY', status: 'HELD' },
    });
    expect(order('k1', 'u2', 'sku-a:2,sku-b:1').rule).toBe('order.recorded');
    expect(order('k1', 'u1', 'sku-a:2').rule).toBe('order.recorded');
    expect(order('k2', 'u2', 'sku-a:1,sku-a:1').rule).toBe('order.refused');
    expect(order('k2', 'u2', 'sku-a:0').rule).toBe('order.refused');
    // A field the contract refuses: BAD_REQUEST, or a design that takes it goes on.
    expect(order('k 2', 'u2', 'sku-a:1').all.map((r) => r.rule)).toEqual([
      'order.refused-field',
      'order.held',
    ]);
    expect(order('k2', 'u2', 'sku-a:1,sku-zzz:1').rule).toBe('order.no-stock');
    // Both lines are short: SOLD_OUT may name either, and nothing is written.
    const short = order('k2', 'u2', 'sku-a:2,sku-b:2');
    expect(short.all.map((r) => r.answer)).toEqual([
      { outcome: 'SOLD_OUT', sku: 'sku-a' },
      { outcome: 'SOLD_OUT', sku: 'sku-b' },
    ]);
    expect(step(s, { op: 'remaining', sku: 'sku-a' }).answer).toEqual({ remaining: 1 });
    expect(step(s, { op: 'lines', requestKey: 'k1' }).answer).toEqual({ lines: cart('sku-a:2,sku-b:1') });
    expect(step(s, { op: 'lines', requestKey: 'k2' }).answer).toEqual({ lines: [] });
    expect(
      orderModelResults(s, at({ op: 'order', request: request('k3', 'u3', 'sku-a:1') })).at(-1),
    ).toMatchObject({
      rule: 'order.gave-up',
      changes: [],
    });
  });

  it('puts every line back once: release, a second release, expiry on the database clock, backdate', () => {
    const s = new OrderState(TOTALS);
    step(s, { op: 'order', request: request('k1', 'u1', 'sku-a:2,sku-b:1') });
    step(s, { op: 'order', request: request('k2', 'u2', 'sku-a:1,sku-b:1', 5) });
    expect(step(s, { op: 'release', requestKey: 'k1' })).toMatchObject({
      rule: 'release',
      answer: { moved: true },
    });
    expect(step(s, { op: 'release', requestKey: 'k1' })).toMatchObject({
      rule: 'release',
      answer: { moved: false },
    });
    expect(step(s, { op: 'status', requestKey: 'k1' }).answer).toEqual({ status: 'RELEASED' });
    expect(step(s, { op: 'remaining', sku: 'sku-a' }).answer).toEqual({ remaining: 2 });
    // k2 expires 5 ms after its order ran: a clock whose bounds straddle that may or may not move it.
    const straddling: TimedOrderCall = {
      id: 99,
      call: { op: 'expire' },
      db: { from: clock, to: clock + 100 },
    };
    expect(orderModelResults(s, straddling).map((r) => r.answer)).toEqual([
      { orders: 0, units: 0 },
      { orders: 1, units: 2 },
    ]);
    expect(orderModelResults(s, straddling, { orders: 1, units: 2 })).toHaveLength(1);
    expect(step(s, { op: 'expire' }).answer).toEqual({ orders: 0, units: 0 });
    step(s, { op: 'backdate', requestKeys: ['k2'] });
    expect(step(s, { op: 'expire' })).toMatchObject({ rule: 'expire', answer: { orders: 1, units: 2 } });
    expect(step(s, { op: 'remaining', sku: 'sku-b' }).answer).toEqual({ remaining: 2 });
  });

  it('compares answers as the contract reads them: SOLD_OUT by its sku, REPLAY by its status', () => {
    expect(
      sameOrderAnswer({ outcome: 'SOLD_OUT', sku: 'sku-a' }, { outcome: 'SOLD_OUT', sku: 'sku-b' }),
    ).toBe(false);
    expect(sameOrderAnswer({ outcome: 'SOLD_OUT', sku: 'sku-a' }, { outcome: 'SOLD_OUT' })).toBe(false);
    expect(
      sameOrderAnswer({ outcome: 'REPLAY', status: 'HELD' }, { outcome: 'REPLAY', status: 'RELEASED' }),
    ).toBe(false);
    expect(sameOrderAnswer({ outcome: 'HELD', status: 'HELD' }, { outcome: 'HELD' })).toBe(true);
    expect(sameOrderAnswer({ orders: 1, units: 3 }, { orders: 1, units: 2 })).toBe(false);
  });
});

type Row = [call: OrderCall, answer: OrderAnswer | undefined, invokedAt: number, completedAt: number | null];

/** A history of rows (an undefined answer: an operation whose ending is unknown), searched with the model. */
function linearizable(rows: Row[]): string {
  const operations = rows.map(
    ([call, answer, invokedAt, completedAt], id): SearchOperation<OrderCall, OrderAnswer, TimedOrderCall> => {
      const op: HistoryOperation<OrderCall, OrderAnswer> = {
        id,
        call,
        session: `s${id}`,
        invokedAt,
        completedAt,
        db: { from: invokedAt, to: completedAt },
        ending: answer ? { kind: 'ok', answer } : { kind: 'unknown', why: 'killed' },
      };
      const timed = { id, call, db: { from: invokedAt, to: completedAt ?? 1e9 } };
      return { op, timed, wanted: answer, required: answer !== undefined };
    },
  );
  return searchLinearization(operations, orderModel(TOTALS), 10_000).kind;
}

const held: OrderAnswer = { outcome: 'HELD', status: 'HELD' };
const orderOf = (key: string, lines: string): OrderCall => ({
  op: 'order',
  request: request(key, `u-${key}`, lines),
});

describe('the linearizability search over the order model', () => {
  it('accepts one of two overlapping carts held and the other sold out, refuses both held', () => {
    const both = (second: OrderAnswer): Row[] => [
      [orderOf('k1', 'sku-a:2,sku-b:1'), held, 0, 10],
      [orderOf('k2', 'sku-b:1,sku-a:2'), second, 1, 11],
    ];
    expect(linearizable(both({ outcome: 'SOLD_OUT', sku: 'sku-a' }))).toBe('found');
    expect(linearizable(both(held))).toBe('none');
    // sku-b has 2: the second cart is short only of sku-a, so SOLD_OUT naming sku-b is no answer.
    expect(linearizable(both({ outcome: 'SOLD_OUT', sku: 'sku-b' }))).toBe('none');
  });

  it('refuses a remaining that shows half a cart, and a SOLD_OUT while a released cart gave its stock back', () => {
    expect(
      linearizable([
        [orderOf('k1', 'sku-a:2,sku-b:1'), held, 0, 10],
        [{ op: 'remaining', sku: 'sku-a' }, { remaining: 1 }, 2, 3],
        [{ op: 'remaining', sku: 'sku-b' }, { remaining: 2 }, 4, 5],
      ]),
    ).toBe('none');
    expect(
      linearizable([
        [orderOf('k1', 'sku-a:3'), held, 0, 1],
        [{ op: 'release', requestKey: 'k1' }, { moved: true }, 2, 3],
        [orderOf('k2', 'sku-a:3'), { outcome: 'SOLD_OUT', sku: 'sku-a' }, 4, 5],
      ]),
    ).toBe('none');
  });

  it('lets an order killed without an answer have taken effect, whole, or not at all', () => {
    const killed: Row = [orderOf('k1', 'sku-a:2,sku-b:1'), undefined, 0, null];
    const linesRead = (lines: string): Row => [
      { op: 'lines', requestKey: 'k1' },
      { lines: cart(lines) },
      5,
      6,
    ];
    expect(linearizable([killed, [{ op: 'lines', requestKey: 'k1' }, { lines: [] }, 5, 6]])).toBe('found');
    expect(linearizable([killed, linesRead('sku-a:2,sku-b:1')])).toBe('found');
    expect(linearizable([killed, linesRead('sku-a:2')])).toBe('none');
  });
});

/** A final read of hand-made keys and skus; the audit agrees with it unless a test changes it. */
function finalRead(
  keys: Record<string, OrderKeyReading>,
  skus: Record<string, [total: number, remaining: number]>,
  audit: Partial<OrderAudit> = {},
): OrderFinalRead {
  const heldKeys = Object.entries(keys).filter(([, r]) => r.status === 'HELD');
  const held = (sku: string) =>
    heldKeys.reduce((n, [, r]) => n + r.lines.filter((l) => l.sku === sku).reduce((m, l) => m + l.qty, 0), 0);
  return {
    keys: new Map(Object.entries(keys)),
    skus: new Map(Object.entries(skus).map(([sku, [total, remaining]]) => [sku, { total, remaining }])),
    audit: {
      skus: Object.entries(skus).map(([sku, [total, remaining]]) => ({
        sku,
        total,
        remaining,
        held: held(sku),
      })),
      heldKeys: heldKeys.map(([key]) => key),
      keysWithManyOrders: 0,
      partialOrders: 0,
      linesWithoutOrder: 0,
      ...audit,
    },
  };
}

const sent = (key: string, lines: string, outcome = 'HELD'): OrderSent => ({
  request: request(key, 'u', lines),
  outcome,
});
const checksOf = (s: OrderSent[], read: OrderFinalRead) => orderInvariants(s, read).map((p) => p.check);

describe('the order invariants', () => {
  const whole = { status: 'HELD', lines: cart('sku-a:2,sku-b:1') } as const;

  it('find nothing wrong with whole orders and stock that adds up', () => {
    expect(
      checksOf(
        [sent('k1', 'sku-b:1,sku-a:2')],
        finalRead({ k1: whole }, { 'sku-a': [3, 1], 'sku-b': [2, 1] }),
      ),
    ).toEqual([]);
  });

  it('each fire on the read that breaks them, and only they', () => {
    const s = [sent('k1', 'sku-a:2,sku-b:1')];
    const partial = { status: 'HELD', lines: cart('sku-a:2') } as const;
    expect(
      checksOf(s, finalRead({ k1: partial }, { 'sku-a': [3, 1], 'sku-b': [2, 2] }, { partialOrders: 1 })),
    ).toEqual(['allOrNothing']);
    const stray = { status: 'NOT_FOUND', lines: cart('sku-a:2') } as const;
    expect(
      checksOf(s, finalRead({ k1: stray }, { 'sku-a': [3, 3], 'sku-b': [2, 2] }, { linesWithoutOrder: 1 })),
    ).toEqual(['allOrNothing']);
    const twice = { status: 'HELD', lines: cart('sku-a:1,sku-a:1') } as const;
    expect(
      checksOf(
        [sent('k1', 'sku-a:1')],
        finalRead({ k1: twice }, { 'sku-a': [3, 1] }, { keysWithManyOrders: 1 }),
      ),
    ).toEqual(['oneOrderPerKey']);
    const big = { status: 'HELD', lines: cart('sku-a:4') } as const;
    expect(checksOf([sent('k1', 'sku-a:4')], finalRead({ k1: big }, { 'sku-a': [3, -1] }))).toEqual([
      'oversold',
    ]);
    expect(checksOf(s, finalRead({ k1: whole }, { 'sku-a': [3, 2], 'sku-b': [2, 1] }))).toEqual(['drift']);
    const books = { reconciled: false, ledgerReplayDrift: 2 };
    expect(checksOf(s, finalRead({ k1: whole }, { 'sku-a': [3, 1], 'sku-b': [2, 1] }, { books }))).toEqual([
      'reconciled',
      'ledgerReplayDrift',
    ]);
    expect(
      checksOf(s, finalRead({ k1: whole }, { 'sku-a': [3, 1], 'sku-b': [2, 1] }, { heldKeys: [] })),
    ).toEqual(['orderAuditMismatch']);
  });

  it('judge a cart by the request answered HELD, not by another sent with its key', () => {
    const s = [sent('k1', 'sku-a:2'), sent('k1', 'sku-a:2,sku-b:1', 'KEY_REUSED')];
    const other = { status: 'HELD', lines: cart('sku-a:2,sku-b:1') } as const;
    const read = finalRead({ k1: other }, { 'sku-a': [3, 1], 'sku-b': [2, 1] }, { partialOrders: 1 });
    expect(orderInvariants(s, read).map((p) => p.message)).toEqual([
      'allOrNothing 1: orders that are not whole (k1 HELD: holds sku-a:2,sku-b:1 of sku-a:2)',
    ]);
  });
});

const SCENARIO_FOLDER = new URL('../fixtures/order/scenarios/', import.meta.url);
const scenarios: OrderScenario[] = await Promise.all(
  readdirSync(SCENARIO_FOLDER)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map(
      async (f) => ((await import(new URL(f, SCENARIO_FOLDER).href)) as { default: OrderScenario }).default,
    ),
);

/** The spec's steps in its one permutation: name, session, and the order step (undefined for RESUME). */
function stepsOf(scenario: OrderScenario & { spec(holdAt: unknown): string }) {
  const text = scenario.spec(scenario.holdAt?.[0]);
  const spec = parseSpec(text, `${scenario.id}.spec`);
  const bodies = new Map(
    [...text.matchAll(/step "([^"]+)"\s*\{([^}]*)\}/g)].map((m) => [m[1], m[2]?.trim() ?? '']),
  );
  const [permutation] = spec.permutations;
  if (!permutation || spec.permutations.length !== 1)
    throw new Error(`${scenario.id} must list one permutation`);
  return permutation.steps.map(({ name }) => {
    const body = bodies.get(name) ?? '';
    const session = spec.sessions.find((s) => s.steps.some((t) => t.step.name === name))?.name ?? '';
    return {
      name,
      session,
      body,
      step: /^RESUME\b/.test(body) ? undefined : parseOrderStep(body.split(/\s+/)),
    };
  });
}

const stepAnswer = (state: OrderState, call: OrderCall) => step(state, call).answer;

describe('the order scenarios', () => {
  it('are the five of fixtures/order/scenarios, each named by its file', () => {
    expect(scenarios.map((s) => s.id)).toEqual([
      'order-contention',
      'order-crash-between-lines',
      'order-expiry-release',
      'order-lost-update',
      'order-opposite-carts',
    ]);
  });

  it.each(scenarios.map((s) => [s.id, s] as const))(
    '%s: the model walked along it gives what it expects',
    (_, scenario) => {
      const state = new OrderState(new Map(scenario.stock.map((s) => [s.sku, s.total])));
      const outcomes: Record<string, number> = {};
      const answers: Record<string, OrderAnswer> = {};
      const count = (answer: OrderAnswer) => {
        if ('outcome' in answer) outcomes[answer.outcome] = (outcomes[answer.outcome] ?? 0) + 1;
      };
      if ('clients' in scenario)
        for (const r of scenario.clients) count(stepAnswer(state, { op: 'order', request: r }));
      else {
        const steps = stepsOf(scenario);
        // A session killed takes no effect in this walk (the model allows that of an order with no answer).
        const killed = new Set(steps.filter((s) => /^RESUME\s+KILL/i.test(s.body)).map((s) => s.session));
        for (const s of steps) {
          if (!s.step || killed.has(s.session)) continue;
          answers[s.name] = stepAnswer(state, orderCallOf(s.step));
          if (s.step.verb === 'ORDER') count(answers[s.name] as OrderAnswer);
        }
      }
      const { expect: expected } = scenario;
      if (expected.outcomes) expect(outcomes).toEqual(expected.outcomes);
      for (const [name, answer] of Object.entries(expected.answers ?? {}))
        expect(answers[name], name).toEqual(answer);
      for (const [sku, remaining] of Object.entries(expected.remaining ?? {}))
        expect(state.free(sku), sku).toBe(remaining);
    },
  );
});

describe('order steps', () => {
  it('read a cart, a TTL and a pause point, and say in one line what is wrong', () => {
    expect(
      parseOrderStep(['order', 'k1', 'u1', 'sku-a:2,sku-b:1', 'TTL', '500', 'UNTIL', 'after-first-line']),
    ).toEqual({
      verb: 'ORDER',
      request: { requestKey: 'k1', user: 'u1', lines: cart('sku-a:2,sku-b:1'), ttlMs: 500 },
      until: 'after-first-line',
    });
    const error = (words: string[]) => () => parseOrderStep(words);
    expect(error(['ORDER', 'k1', 'u1'])).toThrow('ORDER needs a key, a user and a cart (<sku>:<qty>,…)');
    expect(error(['ORDER', 'k1', 'u1', 'sku-a'])).toThrow('a cart line is <sku>:<qty>, got "sku-a"');
    expect(error(['ORDER', 'k1', 'u1', 'sku-a:1', 'UNTIL', 'after-write'])).toThrow(
      'UNTIL needs one of after-read, after-first-line, between-transactions, before-commit, got "after-write"',
    );
    expect(error(['RESERVE', 'k1'])).toThrow('"RESERVE" is no order step');
  });
});
