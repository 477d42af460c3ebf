import { describe, expect, it } from 'vitest';
import type { RequestResult } from '../harness/contracts/reservation/driver/client-task.ts';
import type { FinalRead, KeyStatus } from '../harness/contracts/reservation/verdict/final-read.ts';
import { type CaseFacts, computeReading } from '../harness/contracts/reservation/verdict/invariants.ts';
import { invariantProblems } from '../harness/contracts/reservation/verdict/verdict.ts';
import type { StrategyAudit } from '../strategies/contract.ts';

const answer = (
  requestKey: string,
  outcome: RequestResult['outcome'],
  user = requestKey,
  sku = 'a',
): RequestResult => ({
  requestKey,
  user,
  sku,
  outcome,
  latencyMs: 1,
});

function facts(stock: CaseFacts['stock'], answers: RequestResult[], released: string[] = []): CaseFacts {
  return {
    stock,
    sent: answers.map(({ requestKey, user, sku }) => ({ requestKey, user, sku })),
    answers,
    lifecycle: { released: new Set(released), expireRan: false },
  };
}

function read(statuses: Record<string, KeyStatus>, remaining: Record<string, number>): FinalRead {
  return { statuses: new Map(Object.entries(statuses)), remaining: new Map(Object.entries(remaining)) };
}

/** An audit that agrees with the final read, for the cases where the audit is not the subject. */
function agreeing(skus: StrategyAudit['skus'], activeKeys: string[]): StrategyAudit {
  return { skus, duplicateActive: 0, duplicateKey: 0, activeKeys, endedKeys: [] };
}

describe('computeReading: the harness counts from its own final read', () => {
  it('counts active holds from status(), drift and oversold per sku from remaining()', () => {
    const answers = ['k1', 'k2', 'k3'].map((k) => answer(k, 'HELD'));
    const r = computeReading(
      facts([{ sku: 'a', total: 2 }], answers),
      read({ k1: 'HELD', k2: 'HELD', k3: 'CONFIRMED' }, { a: 1 }),
      agreeing([{ sku: 'a', total: 2, available: 1, active: 3 }], ['k1', 'k2', 'k3']),
    );
    expect(r.invariants).toMatchObject({ total: 2, available: 1, active: 3, drift: -2, oversold: 1 });
    expect(invariantProblems(r).map((p) => p.check)).toEqual(['oversold', 'drift']);
  });

  it('one sku surplus cannot hide another sku deficit', () => {
    const r = computeReading(
      facts(
        [
          { sku: 'a', total: 2 },
          { sku: 'b', total: 2 },
        ],
        [answer('k1', 'HELD')],
      ),
      read({ k1: 'HELD' }, { a: 2, b: 1 }),
      agreeing(
        [
          { sku: 'a', total: 2, available: 2, active: 1 },
          { sku: 'b', total: 2, available: 1, active: 0 },
        ],
        ['k1'],
      ),
    );
    expect(r.invariants.drift).toBe(0);
    expect(invariantProblems(r)).toEqual([{ check: 'drift', message: 'drift 0 (a -1, b 1)' }]);
  });

  it('a held key not found, or released by nobody, is lost; one released by the case is not', () => {
    const answers = ['k1', 'k2', 'k3'].map((k) => answer(k, 'HELD'));
    const r = computeReading(
      facts([{ sku: 'a', total: 3 }], answers, ['k3']),
      read({ k1: 'NOT_FOUND', k2: 'RELEASED', k3: 'RELEASED' }, { a: 3 }),
      agreeing([{ sku: 'a', total: 3, available: 3, active: 0 }], []),
    );
    expect(r.invariants.lostAcknowledged).toBe(2);
  });

  it('an active key answered SOLD_OUT is unacknowledged; a REPLAY answer acknowledges it', () => {
    const r = computeReading(
      facts([{ sku: 'a', total: 3 }], [answer('k1', 'SOLD_OUT'), answer('k2', 'REPLAY')]),
      read({ k1: 'HELD', k2: 'HELD' }, { a: 1 }),
      agreeing([{ sku: 'a', total: 3, available: 1, active: 2 }], ['k1', 'k2']),
    );
    expect(r.invariants.unacknowledgedActive).toBe(1);
  });

  it('two active keys of one user on one sku are a duplicateActive', () => {
    const r = computeReading(
      facts([{ sku: 'a', total: 5 }], [answer('k1', 'HELD', 'u'), answer('k2', 'HELD', 'u')]),
      read({ k1: 'HELD', k2: 'HELD' }, { a: 3 }),
      agreeing([{ sku: 'a', total: 5, available: 3, active: 2 }], ['k1', 'k2']),
    );
    expect(r.invariants.duplicateActive).toBe(1);
  });

  it('SOLD_OUT answers that unsold stock of their own sku could have served are false sold-outs', () => {
    const r = computeReading(
      facts(
        [{ sku: 'a', total: 2 }],
        [answer('k1', 'HELD'), answer('k2', 'SOLD_OUT'), answer('k3', 'SOLD_OUT')],
      ),
      read({ k1: 'HELD', k2: 'NOT_FOUND', k3: 'NOT_FOUND' }, { a: 1 }),
      agreeing([{ sku: 'a', total: 2, available: 1, active: 1 }], ['k1']),
    );
    expect(r.invariants.falseSoldOut).toBe(1);
    expect(invariantProblems(r)).toEqual([]);
  });

  it('every disagreement between the audit and the final read is an auditMismatch, with both numbers', () => {
    const r = computeReading(
      facts([{ sku: 'a', total: 2 }], [answer('k1', 'HELD'), answer('k2', 'HELD')]),
      read({ k1: 'HELD', k2: 'HELD' }, { a: 0 }),
      {
        skus: [{ sku: 'a', total: 2, available: 1, active: 1 }],
        duplicateActive: 0,
        duplicateKey: 0,
        activeKeys: ['k1', 'ghost'],
        endedKeys: ['k2'],
      },
    );
    expect(r.mismatches).toEqual([
      'a available: audit 1, remaining() 0',
      'a active: audit 1, final read 2',
      '1 key(s) active in the audit only: ghost',
      '1 key(s) active by status() only: k2',
    ]);
    expect(r.invariants.auditMismatch).toBe(4);
  });
});
