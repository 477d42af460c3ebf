/**
 * The linearizability checker against small histories whose verdict is known by hand: each contract
 * transition, real-time order, concurrency, unknown and aborted endings, expiry on the database clock,
 * keys across skus, the search budget, and the witness a violation is shown with.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../harness/contracts/reservation/history/check-history.ts';
import { heldAfterDisable } from '../harness/contracts/reservation/history/held-after-disable.ts';
import type {
  Answer,
  Call,
  ReservationHistory,
  ReservationOperation,
} from '../harness/contracts/reservation/history/reservation-operations.ts';
import { syntheticHistory } from '../harness/contracts/reservation/history/synthetic-history.ts';
import type { Ending } from '../harness/history/history.ts';
import { HistoryRecorder } from '../harness/history/recorder.ts';

type Op = [call: Call, invokedAt: number, completedAt: number | null, ending: Answer | 'aborted' | 'unknown'];

/** A history from [call, invoked, completed, answer] rows; the database clock equals the harness clock. */
function history(stock: Record<string, number>, rows: Op[]): ReservationHistory {
  const operations = rows.map(([call, invokedAt, completedAt, answer], id): ReservationOperation => {
    const ending: Ending<Answer> =
      answer === 'aborted'
        ? { kind: 'aborted' }
        : answer === 'unknown'
          ? { kind: 'unknown', why: 'cut' }
          : { kind: 'ok', answer };
    return {
      id,
      call,
      session: `s${id}`,
      invokedAt,
      completedAt,
      db: { from: invokedAt, to: completedAt },
      ending,
    };
  });
  return { operations, stock: Object.entries(stock).map(([sku, total]) => ({ sku, total })) };
}

const reserve = (requestKey: string, user: string, sku = 'A', ttlMs = 60_000): Call => ({
  op: 'reserve',
  requestKey,
  user,
  sku,
  ttlMs,
});
const HELD: Answer = { outcome: 'HELD', status: 'HELD' };
const SOLD_OUT: Answer = { outcome: 'SOLD_OUT' };
const status = (requestKey: string): Call => ({ op: 'status', requestKey });
const remaining = (sku = 'A'): Call => ({ op: 'remaining', sku });

describe('the history checker', () => {
  it('accepts a sequential history that follows the contract', () => {
    const verdict = checkHistory(
      history({ A: 2 }, [
        [reserve('k1', 'u1'), 0, 1, HELD],
        [reserve('k1', 'u1'), 2, 3, { outcome: 'REPLAY', status: 'HELD' }],
        [reserve('k2', 'u1'), 4, 5, { outcome: 'USER_LIMIT' }],
        [reserve('k1', 'u2'), 6, 7, { outcome: 'KEY_REUSED' }],
        [{ op: 'confirm', requestKey: 'k1' }, 8, 9, { moved: true }],
        [{ op: 'confirm', requestKey: 'k1' }, 10, 11, { moved: false }],
        [reserve('k1', 'u1'), 12, 13, { outcome: 'REPLAY', status: 'CONFIRMED' }],
        [{ op: 'release', requestKey: 'k1' }, 14, 15, { moved: false }],
        [status('k1'), 16, 17, { status: 'CONFIRMED' }],
        [status('k9'), 16, 17, { status: 'NOT_FOUND' }],
        [remaining(), 18, 19, { remaining: 1 }],
      ]),
    );
    expect(verdict.status).toBe('linearizable');
  });

  it('flags a stale replay, with the model answer in the witness', () => {
    const verdict = checkHistory(
      history({ A: 2 }, [
        [reserve('k1', 'u1'), 0, 1, HELD],
        [{ op: 'confirm', requestKey: 'k1' }, 2, 3, { moved: true }],
        [reserve('k1', 'u1'), 4, 5, { outcome: 'REPLAY', status: 'HELD' }],
      ]),
    );
    expect(verdict.status).toBe('violation');
    if (verdict.status !== 'violation') return;
    expect(verdict.witness.map((w) => w.call)).toEqual(['reserve k1 u1 A', 'confirm k1', 'reserve k1 u1 A']);
    expect(verdict.witness.at(-1)?.modelAnswers).toBe('REPLAY CONFIRMED');
    expect(verdict.summary).toContain('REPLAY HELD');
  });

  it('lets concurrent requests linearize in either order, but never oversell', () => {
    const race = (second: Answer) =>
      checkHistory(
        history({ A: 1 }, [
          [reserve('k1', 'u1'), 0, 10, SOLD_OUT],
          [reserve('k2', 'u2'), 1, 9, second],
        ]),
      ).status;
    expect(race(HELD)).toBe('linearizable');
    expect(race(SOLD_OUT)).toBe('violation');
    const both = checkHistory(
      history({ A: 1 }, [
        [reserve('k1', 'u1'), 0, 10, HELD],
        [reserve('k2', 'u2'), 1, 9, HELD],
      ]),
    );
    expect(both.status).toBe('violation');
  });

  it('respects real time: an answer completed before another began comes first', () => {
    const rows = (sold: number, held: number): Op[] => [
      [reserve('k1', 'u1'), sold, sold + 1, SOLD_OUT],
      [reserve('k2', 'u2'), held, held + 1, HELD],
    ];
    // SOLD_OUT strictly before the only HELD, with a unit free: no order explains it.
    expect(checkHistory(history({ A: 1 }, rows(0, 5))).status).toBe('violation');
    expect(checkHistory(history({ A: 1 }, rows(5, 0))).status).toBe('linearizable');
  });

  it('explains a false sold-out only for a design that declares one', () => {
    const h = history({ A: 2 }, [
      [reserve('k1', 'u1'), 0, 1, HELD],
      [reserve('k2', 'u2'), 2, 3, SOLD_OUT],
    ]);
    const strict = checkHistory(h);
    expect(strict.status).toBe('violation');
    if (strict.status === 'violation') {
      expect(strict.witness.at(-1)?.modelAnswers).toBe('HELD');
      expect(strict.witness.at(-1)?.rule).toBe('reserve.held');
      // The failure says what the design can do about it: the declaration the contract offers.
      expect(strict.summary).toContain('declares `falseSoldOut`');
      expect(strict.summary).toContain("by the contract's rule reserve.held: otherwise HELD");
    }
    expect(checkHistory(h, { model: { soldOutWhileStock: true } }).status).toBe('linearizable');
  });

  it('names the contract rule of every model answer in a witness, and no falseSoldOut where it is no remedy', () => {
    const verdict = checkHistory(
      history({ A: 1 }, [
        [reserve('k1', 'u1'), 0, 1, HELD],
        [{ op: 'release', requestKey: 'k1' }, 2, 3, { moved: true }],
        [{ op: 'release', requestKey: 'k1' }, 4, 5, { moved: true }],
      ]),
    );
    expect(verdict.status).toBe('violation');
    if (verdict.status !== 'violation') return;
    expect(verdict.witness.at(-1)).toMatchObject({ modelAnswers: 'not moved', rule: 'release' });
    expect(verdict.summary).toContain("by the contract's rule release: release: a HELD key becomes RELEASED");
    expect(verdict.summary).not.toContain('falseSoldOut');
  });

  it('allows KEY_REUSED or BAD_REQUEST for a recorded key sent with a sku that has no stock', () => {
    // The explorer's false alarm: a design answering KEY_REUSED (key looked up first) failed on the model's
    // BAD_REQUEST, whichever optional operations it had.
    const KEY_REUSED: Answer = { outcome: 'KEY_REUSED' };
    const BAD_REQUEST: Answer = { outcome: 'BAD_REQUEST' };
    const withSecond = (answer: Answer) =>
      checkHistory(
        history({ A: 1 }, [
          [reserve('k1', 'u1', 'A'), 0, 1, HELD],
          [reserve('k1', 'u1', 'B'), 2, 3, answer],
          [reserve('k1', 'u2', 'B'), 4, 5, answer],
          [reserve('k1', 'u1', 'A'), 6, 7, { outcome: 'REPLAY', status: 'HELD' }],
        ]),
      ).status;
    expect(withSecond(KEY_REUSED)).toBe('linearizable');
    expect(withSecond(BAD_REQUEST)).toBe('linearizable');
    expect(withSecond(SOLD_OUT)).toBe('violation');
    expect(withSecond(HELD)).toBe('violation');
    // A key never recorded with a sku that has no stock: BAD_REQUEST only.
    const fresh = (answer: Answer) =>
      checkHistory(history({ A: 1 }, [[reserve('k2', 'u1', 'B'), 0, 1, answer]])).status;
    expect(fresh(BAD_REQUEST)).toBe('linearizable');
    expect(fresh(KEY_REUSED)).toBe('violation');
    expect(checkHistory(history({ A: 1 }, [[remaining('B'), 0, 1, { remaining: 0 }]])).status).toBe(
      'linearizable',
    );
  });

  it('places an unknown ending anywhere after its invocation, or nowhere; an aborted one nowhere', () => {
    const readAfter = (ending: 'unknown' | 'aborted', read: Answer) =>
      checkHistory(
        history({ A: 1 }, [
          [reserve('k1', 'u1'), 0, null, ending],
          [status('k1'), 10, 11, read],
        ]),
      ).status;
    expect(readAfter('unknown', { status: 'HELD' })).toBe('linearizable');
    expect(readAfter('unknown', { status: 'NOT_FOUND' })).toBe('linearizable');
    expect(readAfter('aborted', { status: 'NOT_FOUND' })).toBe('linearizable');
    expect(readAfter('aborted', { status: 'HELD' })).toBe('violation');
  });

  it('judges expiry on the database clock, either way where the clocks overlap', () => {
    const expire = (from: number, to: number, units: number) =>
      checkHistory(
        history({ A: 1 }, [
          [reserve('k1', 'u1', 'A', 100), 0, 1, HELD],
          [{ op: 'expire' }, from, to, { units }],
        ]),
      ).status;
    expect(expire(50, 51, 0)).toBe('linearizable');
    expect(expire(50, 51, 1)).toBe('violation');
    expect(expire(200, 201, 1)).toBe('linearizable');
    expect(expire(200, 201, 0)).toBe('violation');
    expect(expire(100, 102, 0)).toBe('linearizable');
    expect(expire(100, 102, 1)).toBe('linearizable');
  });

  it('decides that a ttl passed after a wait of distinguishableWait(ttl), however the clocks fell', () => {
    for (const slack of [0.5, 3, 40]) {
      const offset = 1_700_000_000_000;
      const recorder = new HistoryRecorder<Call, Answer>({ offset, slack });
      const ttl = 300;
      // The reserve completes at harness time 10; the wait's first reading of the database clock is as
      // early as the mapping allows, and the harness reads the instant the wait ends as early as it may.
      const completed = 10;
      const waitStart = completed + offset - slack;
      const waitEnd = waitStart + recorder.distinguishableWait(ttl) + 0.001;
      const invoked = waitEnd - offset - slack;
      recorder.add(reserve('k1', 'u1', 'A', ttl), { session: 's1', invokedAt: 0 }, completed, {
        kind: 'ok',
        answer: HELD,
      });
      // A design that ignored the ttl: its expire returns nothing.
      recorder.add({ op: 'expire' }, { session: 's2', invokedAt: invoked }, invoked + 1, {
        kind: 'ok',
        answer: { units: 0 },
      });
      expect(checkHistory(recorder.history([{ sku: 'A', total: 1 }])).status, `slack ${slack}`).toBe(
        'violation',
      );
    }
  });

  it('expires a backdated hold whatever its ttl', () => {
    const verdict = checkHistory(
      history({ A: 1 }, [
        [reserve('k1', 'u1'), 0, 1, HELD],
        [{ op: 'backdate', requestKeys: ['k1'] }, 2, 3, { done: true }],
        [{ op: 'expire' }, 4, 5, { units: 1 }],
        [status('k1'), 6, 7, { status: 'EXPIRED' }],
        [remaining(), 6, 7, { remaining: 1 }],
      ]),
    );
    expect(verdict.status).toBe('linearizable');
  });

  it('joins skus a key was sent with, so a key reused on another sku must be KEY_REUSED', () => {
    const second = (answer: Answer) =>
      checkHistory(
        history({ A: 1, B: 1 }, [
          [reserve('k1', 'u1', 'A'), 0, 1, HELD],
          [reserve('k1', 'u2', 'B'), 2, 3, answer],
        ]),
      );
    expect(second({ outcome: 'KEY_REUSED' }).status).toBe('linearizable');
    const wrong = second(HELD);
    expect(wrong.status).toBe('violation');
    expect(wrong.parts).toBe(1);
  });

  it('checks independent skus apart', () => {
    const verdict = checkHistory(
      history({ A: 1, B: 1 }, [
        [reserve('k1', 'u1', 'A'), 0, 5, HELD],
        [reserve('k2', 'u1', 'B'), 1, 4, HELD],
        [remaining('A'), 6, 7, { remaining: 0 }],
        [remaining('B'), 6, 7, { remaining: 0 }],
      ]),
    );
    expect(verdict).toMatchObject({ status: 'linearizable', parts: 2 });
  });

  it('accepts either refusal where both apply, and BAD_REQUEST for an unknown sku', () => {
    const refusal = (answer: Answer) =>
      checkHistory(
        history({ A: 1 }, [
          [reserve('k1', 'u1'), 0, 1, HELD],
          [reserve('k2', 'u1'), 2, 3, answer],
        ]),
      ).status;
    expect(refusal({ outcome: 'USER_LIMIT' })).toBe('linearizable');
    expect(refusal(SOLD_OUT)).toBe('linearizable');
    expect(refusal(HELD)).toBe('violation');
    const unknownSku = checkHistory(
      history({ A: 1 }, [[reserve('k1', 'u1', 'Z'), 0, 1, { outcome: 'BAD_REQUEST' }]]),
    );
    expect(unknownSku.status).toBe('linearizable');
  });

  it('stops at its budget and says so instead of passing', () => {
    // 12 concurrent HELDs of distinct keys on 10 units, each read back HELD, and a release of unknown
    // ending (it could give a unit back, so no count proves the oversell): no order exists, and proving it
    // means trying every way to pick the 10.
    const rows: Op[] = Array.from({ length: 12 }, (_, i): Op => [reserve(`k${i}`, `u${i}`), 0, 50, HELD]);
    rows.push([{ op: 'release', requestKey: 'k0' }, 0, null, 'unknown']);
    rows.push(...Array.from({ length: 12 }, (_, i): Op => [status(`k${i}`), 60, 61, { status: 'HELD' }]));
    const verdict = checkHistory(history({ A: 10 }, rows), { budget: 500 });
    expect(verdict.status).toBe('unchecked');
    if (verdict.status === 'unchecked') expect(verdict.reason).toContain('budget 500');
  });

  it('checks a contention-sized history in a number of steps linear in its size times its overlap', () => {
    // 150 concurrent requests for 40 units: 40 HELD, 110 SOLD_OUT, then every key and the sku read back.
    const rows: Op[] = Array.from(
      { length: 150 },
      (_, i): Op => [
        reserve(`k${i}`, `u${i}`),
        i * 0.01,
        100 + i * 0.01,
        i % 3 === 0 && i < 120 ? HELD : SOLD_OUT,
      ],
    );
    rows.push(
      ...Array.from(
        { length: 150 },
        (_, i): Op => [status(`k${i}`), 200, 201, { status: i % 3 === 0 && i < 120 ? 'HELD' : 'NOT_FOUND' }],
      ),
    );
    rows.push([remaining(), 200, 201, { remaining: 0 }]);
    const verdict = checkHistory(history({ A: 40 }, rows));
    expect(verdict.status).toBe('linearizable');
    expect(verdict.steps).toBeLessThanOrEqual(rows.length * 150);
  });
});

describe('the history checker on histories linearizable by construction', () => {
  it('never raises a false alarm (property: random programs run through the model, intervals widened)', () => {
    fc.assert(
      fc.property(
        fc.record({
          operations: fc.integer({ min: 1, max: 80 }),
          skus: fc.integer({ min: 1, max: 3 }),
          stockPerSku: fc.integer({ min: 1, max: 4 }),
          users: fc.integer({ min: 1, max: 5 }),
          overlap: fc.integer({ min: 0, max: 10 }),
          seed: fc.integer(),
        }),
        (options) => {
          expect(checkHistory(syntheticHistory(options)).status).toBe('linearizable');
        },
      ),
      { numRuns: 400, seed: 42 },
    );
  });

  it('checks 10,000 operations on one sku without running out of budget', () => {
    const big = syntheticHistory({
      operations: 10_000,
      skus: 1,
      stockPerSku: 50,
      users: 400,
      overlap: 4,
      seed: 7,
    });
    const verdict = checkHistory(big);
    expect(verdict.status).toBe('linearizable');
    expect(verdict.steps).toBeLessThanOrEqual(10_000 * 20);
  });
});

describe('the history checker on an oversold history', () => {
  it('proves it has no order at once, with the smallest witness: one HELD more than the stock', () => {
    const rows: Op[] = Array.from(
      { length: 150 },
      (_, i): Op => [reserve(`k${i}`, `u${i}`), i * 0.01, 100, HELD],
    );
    rows.push(...Array.from({ length: 150 }, (_, i): Op => [status(`k${i}`), 200, 201, { status: 'HELD' }]));
    const verdict = checkHistory(history({ A: 40 }, rows));
    expect(verdict.status).toBe('violation');
    if (verdict.status !== 'violation') return;
    expect(verdict.witness).toHaveLength(41);
    expect(verdict.witness.every((w) => w.answer === 'HELD')).toBe(true);
    expect(verdict.summary).toContain('the model answers SOLD_OUT there');
  });
});

describe('the history checker after a crash', () => {
  it('settles hundreds of cut-off reserves by the final read instead of guessing', () => {
    const rows: Op[] = Array.from(
      { length: 400 },
      (_, i): Op => [reserve(`k${i}`, `u${i}`), i * 0.01, null, 'unknown'],
    );
    rows.push(
      ...Array.from(
        { length: 400 },
        (_, i): Op => [status(`k${i}`), 500, 501, { status: i % 9 === 0 ? 'HELD' : 'NOT_FOUND' }],
      ),
    );
    rows.push([remaining(), 500, 501, { remaining: 1000 - 45 }]);
    const h = history({ A: 1000 }, rows);
    for (const op of h.operations.filter((o) => o.call.op !== 'reserve')) op.session = 'final-read';
    const verdict = checkHistory(h);
    expect(verdict.status).toBe('linearizable');
    expect(verdict.steps).toBeLessThanOrEqual(rows.length * 50);
  });
});

describe('the history checker on a lost acknowledgement', () => {
  it('proves at once that a HELD key read back NOT_FOUND has no order, witnessed by the two', () => {
    const rows: Op[] = Array.from(
      { length: 300 },
      (_, i): Op => [reserve(`k${i}`, `u${i}`), i * 0.01, i % 7 ? null : 100, i % 7 ? 'unknown' : HELD],
    );
    rows.push(
      ...Array.from({ length: 300 }, (_, i): Op => [status(`k${i}`), 200, 201, { status: 'NOT_FOUND' }]),
    );
    const verdict = checkHistory(history({ A: 1000 }, rows));
    expect(verdict).toMatchObject({ status: 'violation', steps: 0 });
    if (verdict.status !== 'violation') return;
    const [held, read] = verdict.witness;
    expect(verdict.witness).toHaveLength(2);
    expect([held?.answer, read?.answer]).toEqual(['HELD', 'NOT_FOUND']);
    expect(read?.call).toBe(`status ${held?.call.split(' ')[1]}`);
  });
});

describe('heldAfterDisable', () => {
  const disable = (sku = 'A'): Call => ({ op: 'disable', sku });
  /** A booking held before its commit from 0, let go on at `resumedAt`; a disable answering at 20. */
  function bookedAround(resumedAt: number | undefined, moved = true): ReservationOperation[] {
    const { operations } = history({ A: 5 }, [
      [reserve('k1', 'u1'), 0, 40, HELD],
      [disable(), 10, 20, { moved }],
    ]);
    const [booking, disabling] = operations;
    if (!booking || !disabling) throw new Error('two operations');
    return [resumedAt === undefined ? booking : { ...booking, resumedAt }, disabling];
  }

  it('counts a booking let go on after the disable answered, which linearizability allows', () => {
    const operations = bookedAround(30);
    expect(heldAfterDisable(operations)).toEqual([{ requestKey: 'k1', sku: 'A', lateByMs: 10 }]);
    expect(checkHistory({ operations, stock: [{ sku: 'A', total: 5 }] }).status).toBe('linearizable');
  });

  it('counts nothing for a booking let go on before the answer, nor for one never held back', () => {
    expect(heldAfterDisable(bookedAround(15))).toEqual([]);
    expect(heldAfterDisable(bookedAround(undefined))).toEqual([]);
  });

  it('counts nothing after a disable that disabled nothing, nor on another sku', () => {
    expect(heldAfterDisable(bookedAround(30, false))).toEqual([]);
    const [booking, disabling] = bookedAround(30);
    if (!booking || !disabling) throw new Error('two operations');
    expect(heldAfterDisable([booking, { ...disabling, call: disable('B') }])).toEqual([]);
  });

  it('counts a booking sent after the disable answered', () => {
    const { operations } = history({ A: 5 }, [
      [disable(), 0, 10, { moved: true }],
      [reserve('k1', 'u1'), 11, 12, HELD],
    ]);
    expect(heldAfterDisable(operations)).toHaveLength(1);
  });
});
