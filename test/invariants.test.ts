import { describe, expect, it } from 'vitest';
import type { RequestResult } from '../harness/client-task.ts';
import { reconcile, violations } from '../harness/invariants.ts';

const answer = (requestKey: string, outcome: RequestResult['outcome']): RequestResult => ({
  requestKey,
  outcome,
  latencyMs: 1,
});

describe('reconcile', () => {
  it('derives drift and oversold per sku from the strategy counts', () => {
    const inv = reconcile(
      {
        skus: [
          { sku: 'a', total: 40, available: 39, active: 150 },
          { sku: 'b', total: 10, available: 10, active: 0 },
        ],
        duplicateActive: 0,
        duplicateKey: 0,
        activeKeys: [],
        endedKeys: [],
      },
      [],
    );
    expect(inv).toMatchObject({ total: 50, available: 49, active: 150, drift: -149, oversold: 110 });
    expect(violations(inv)).toEqual(['oversold 110', 'drift -149']);
  });

  it('counts HELD answers without a row (an expired one is accounted) and active rows nobody was told about', () => {
    const inv = reconcile(
      {
        skus: [{ sku: 'a', total: 2, available: 0, active: 2 }],
        duplicateActive: 0,
        duplicateKey: 0,
        activeKeys: ['k1', 'k3'],
        endedKeys: ['k4'],
      },
      [answer('k1', 'HELD'), answer('k2', 'HELD'), answer('k4', 'HELD'), answer('k1', 'REPLAY')],
    );
    expect(inv.lostAcknowledged).toBe(1);
    expect(inv.unacknowledgedActive).toBe(1);
  });

  it('counts SOLD_OUT answers that unsold stock could have served as false sold-outs', () => {
    const inv = reconcile(
      {
        skus: [{ sku: 'a', total: 2, available: 1, active: 1 }],
        duplicateActive: 0,
        duplicateKey: 0,
        activeKeys: ['k1'],
        endedKeys: [],
      },
      [answer('k1', 'HELD'), answer('k2', 'SOLD_OUT'), answer('k3', 'SOLD_OUT')],
    );
    expect(inv.falseSoldOut).toBe(1);
    expect(violations(inv)).toEqual([]);
  });
});
