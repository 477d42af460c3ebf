/**
 * The probes' verdicts as pure functions (harness/verdict/): selling what remains (how much each node is
 * asked for, and when the probe fires), the books against the answers, and GAVE_UP that wrote. The
 * controls each of them catches, run through the command line, are in checks-can-fail.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { RequestResult } from '../harness/contracts/reservation/driver/client-task.ts';
import { booksMatchAnswers } from '../harness/contracts/reservation/verdict/books-answers.ts';
import type { KeyStatus } from '../harness/contracts/reservation/verdict/final-read.ts';
import { gaveUpWrote } from '../harness/contracts/reservation/verdict/gave-up.ts';
import type { CaseFacts } from '../harness/contracts/reservation/verdict/invariants.ts';
import {
  PROBE_UNITS_AT_MOST,
  type ProbeTarget,
  requestsForNextNode,
  sellsWhatRemainsProblems,
  skuProbe,
} from '../harness/contracts/reservation/verdict/sells-what-remains.ts';
import type { StrategyAudit } from '../strategies/contract.ts';

const target = (remaining: number, over: Partial<ProbeTarget> = {}): ProbeTarget => ({
  sku: 'a',
  remaining,
  total: 40,
  disabled: false,
  ...over,
});

const sale = (node: string, held: number, last = 'SOLD_OUT') => ({
  node,
  outcomes: [...Array(held).fill('HELD'), last],
});

describe('sell what remains', () => {
  it('asks each node for what is still due and one more, within the stock given and the cap', () => {
    expect(requestsForNextNode(target(5), 0)).toBe(6);
    expect(requestsForNextNode(target(5), 3)).toBe(3);
    expect(requestsForNextNode(target(5), 5)).toBe(1);
    expect(requestsForNextNode(target(0), 0)).toBe(1);
    // A design that says more than it was given is not sold past the stock.
    expect(requestsForNextNode(target(1000, { total: 40 }), 0)).toBe(41);
    // Disabled: nothing is due, whatever remaining says.
    expect(requestsForNextNode(target(7, { disabled: true }), 0)).toBe(1);
    // Past the cap, the probe sells the cap and no more.
    const big = target(940, { total: 1000 });
    expect(requestsForNextNode(big, 0)).toBe(PROBE_UNITS_AT_MOST);
    expect(requestsForNextNode(big, PROBE_UNITS_AT_MOST)).toBe(0);
  });

  it('passes a design that sells exactly what it said, node by node, then refuses', () => {
    const probe = skuProbe(target(5), [sale('node-1', 3), sale('node-2', 2)]);
    expect(probe).toEqual({ sku: 'a', expected: 5, sold: 5, answers: { HELD: 5, SOLD_OUT: 2 } });
    expect(sellsWhatRemainsProblems([probe])).toEqual([]);
  });

  it('fires on a leak (sells short), phantom stock and a refusal other than SOLD_OUT', () => {
    const short = skuProbe(target(39), [sale('node-1', 32), sale('node-2', 0)]);
    const past = skuProbe(target(2), [{ node: 'node-1', outcomes: ['HELD', 'HELD', 'HELD'] }]);
    const failed = skuProbe(target(1), [{ node: 'node-1', outcomes: ['ERROR'], error: 'boom' }]);
    const disabled = skuProbe(target(3, { disabled: true }), [sale('node-1', 1)]);
    expect(sellsWhatRemainsProblems([short, past, failed, disabled]).map((p) => p.message)).toEqual([
      'sellsWhatRemains: a remaining() 39, sold 32',
      'sellsWhatRemains: a remaining() 2, sold 3',
      'sellsWhatRemains: a remaining() 1, sold 0; node-1 answered ERROR (boom)',
      'sellsWhatRemains: a disabled: 0 due, sold 1',
    ]);
  });

  it('past the cap, judges the units it sold', () => {
    const big = target(940, { total: 1000 });
    const all = skuProbe(big, [{ node: 'node-1', outcomes: Array(PROBE_UNITS_AT_MOST).fill('HELD') }]);
    expect(all).toMatchObject({ expected: 940, sold: PROBE_UNITS_AT_MOST, capped: PROBE_UNITS_AT_MOST });
    expect(sellsWhatRemainsProblems([all])).toEqual([]);
    const short = skuProbe(big, [sale('node-1', 60)]);
    expect(sellsWhatRemainsProblems([short])[0]?.message).toBe(
      `sellsWhatRemains: a remaining() 940, sold 60 of the ${PROBE_UNITS_AT_MOST} probed`,
    );
  });
});

const answer = (requestKey: string, outcome: RequestResult['outcome'], sku = 'a'): RequestResult => ({
  requestKey,
  user: `u-${requestKey}`,
  sku,
  outcome,
  latencyMs: 0,
});

function facts(answers: RequestResult[], lifecycle: Partial<CaseFacts['lifecycle']> = {}): CaseFacts {
  return {
    stock: [{ sku: 'a', total: 10 }],
    sent: answers.map(({ requestKey, user, sku }) => ({ requestKey, user, sku })),
    answers,
    lifecycle: { released: new Set(), expireRan: false, ...lifecycle },
  };
}

const booksSaying = (frozen: number, sold: number): StrategyAudit => ({
  skus: [{ sku: 'a', total: 10, available: 10 - frozen - sold, active: frozen + sold }],
  duplicateActive: 0,
  duplicateKey: 0,
  activeKeys: [],
  endedKeys: [],
  books: { reconciled: true, ledgerReplayDrift: 0, skus: [{ sku: 'a', frozen, sold }] },
});

describe('books against answers', () => {
  const held = [answer('k1', 'HELD'), answer('k2', 'HELD'), answer('k3', 'HELD')];
  const lifecycle = { confirmed: new Set(['k1']), released: new Set(['k2']), unitsExpired: 0 };

  it('holds where sold is the confirms answered true and frozen the holds not ended', () => {
    expect(booksMatchAnswers(facts(held, lifecycle), booksSaying(1, 1), 0)).toEqual([]);
  });

  it('fires on a confirm the books never booked', () => {
    expect(booksMatchAnswers(facts(held, lifecycle), booksSaying(2, 0), 0).map((p) => p.message)).toEqual([
      'booksMatchAnswers: a sold: books 0, confirms answered true 1',
      'booksMatchAnswers: frozen: books 2, HELD answers less confirmed, released and expired 1',
    ]);
  });

  it('widens by the answers the case could not have, and leaves a lost hold to lostAcknowledged', () => {
    const cut = [...held, answer('k4', 'INDETERMINATE'), answer('k4', 'REPLAY')];
    expect(booksMatchAnswers(facts(cut, lifecycle), booksSaying(2, 1), 0)).toEqual([]);
    expect(booksMatchAnswers(facts(held, { ...lifecycle, unanswered: 1 }), booksSaying(1, 0), 0)).toEqual([]);
    expect(booksMatchAnswers(facts(held, lifecycle), booksSaying(0, 1), 1)).toEqual([]);
  });

  it('has nothing to say of a design without book figures', () => {
    const { books: _, ...noBooks } = booksSaying(2, 0);
    expect(booksMatchAnswers(facts(held, lifecycle), noBooks, 0)).toEqual([]);
  });
});

describe('GAVE_UP writes nothing', () => {
  const read = (entries: [string, KeyStatus][]) => new Map(entries);

  it('fires on a key answered GAVE_UP that reads anything but NOT_FOUND', () => {
    const answers = [answer('k1', 'GAVE_UP'), answer('k2', 'HELD')];
    const problems = gaveUpWrote(
      answers,
      answers,
      read([
        ['k1', 'RELEASED'],
        ['k2', 'HELD'],
      ]),
    );
    expect(problems.map((p) => p.message)).toEqual(['gaveUpWrote 1: k1 reads RELEASED after GAVE_UP']);
    expect(gaveUpWrote(answers, answers, read([['k1', 'NOT_FOUND']]))).toEqual([]);
  });

  it('leaves a key that another answer explains: sent again and held, or sent and never answered', () => {
    const retried = [answer('k1', 'GAVE_UP'), answer('k1', 'HELD')];
    expect(gaveUpWrote(retried, retried, read([['k1', 'HELD']]))).toEqual([]);
    const once = [answer('k1', 'GAVE_UP')];
    expect(gaveUpWrote([...once, ...once], once, read([['k1', 'HELD']]))).toEqual([]);
  });
});
