/**
 * memory-quota's node count (strategies/support/node-count.ts), called directly: a count dropped after an
 * unknown outcome is rebuilt from the ledger only once the node's other sales in flight have settled —
 * the switchover oversold when a rebuild read the ledger while another session's commit was still
 * waiting for its standby (docs/cluster.md, memory-quota in a switchover) — and nothing is taken from a
 * dropped count. A reserve whose count keeps being dropped gives up after its bound (count-attempts.ts).
 */
import { describe, expect, it } from 'vitest';
import type { PausePoint, SessionContext } from '../strategies/contract.ts';
import { COUNT_DROPPED, onLiveCount } from '../strategies/support/count-attempts.ts';
import { dropCount, nodeCount, settleUnit, takeUnit } from '../strategies/support/node-count.ts';

const SKU = 'sku-lab-01';

/** A node of `share` units whose ledger the test writes: each start reads it as it is then. */
function ledgerNode(incarnation: string, share: number) {
  const ledger: string[] = [];
  let starts = 0;
  const start = async () => {
    starts += 1;
    return new Map([[SKU, share - ledger.length]]);
  };
  return { ledger, starts: () => starts, count: () => nodeCount(incarnation, start) };
}

describe('node count', () => {
  it('rebuilds only once a sale in flight has settled, so a sale that lands meanwhile is counted', async () => {
    const node = ledgerNode('t/node-1#1', 3);
    const first = await node.count();
    expect(takeUnit(first, SKU)).toBe('taken');
    node.ledger.push('k1');
    settleUnit(first, SKU, false);
    // k2 in flight (its commit waiting for the standby); k3's session loses its connection: dropped.
    expect(takeUnit(first, SKU)).toBe('taken');
    dropCount(first);
    expect(takeUnit(first, SKU)).toBe('dropped');
    let rebuilt = false;
    const next = node.count().then((count) => {
      rebuilt = true;
      return count;
    });
    // Every turn a rebuild could take without the database: it waits for k2 all the same.
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    expect(rebuilt).toBe(false);
    expect(node.starts()).toBe(1);
    node.ledger.push('k2');
    settleUnit(first, SKU, false);
    const count = await next;
    expect(node.starts()).toBe(2);
    expect(count.units.get(SKU)).toBe(1);
    expect(takeUnit(count, SKU)).toBe('taken');
    settleUnit(count, SKU, false);
    expect(takeUnit(count, SKU)).toBe('none');
  });

  it('starts again after a start that failed, and a new incarnation starts from nothing', async () => {
    let fail = true;
    const start = async () => {
      if (fail) throw new Error('connection cut');
      return new Map([[SKU, 2]]);
    };
    await expect(nodeCount('t/node-2#1', start)).rejects.toThrow('connection cut');
    fail = false;
    const count = await nodeCount('t/node-2#1', start);
    expect(takeUnit(count, SKU)).toBe('taken');
    settleUnit(count, SKU, false);
    const restarted = await nodeCount('t/node-2#2', start);
    expect(restarted).not.toBe(count);
    expect(restarted.units.get(SKU)).toBe(2);
  });
});

describe('a reserve on a count that keeps being dropped', () => {
  it('answers GAVE_UP after its bound, offering each pause point once over all its attempts', async () => {
    const node = ledgerNode('t/node-3#1', 5);
    const held: PausePoint[] = [];
    const retries: string[] = [];
    const ctx = {
      pause: async (point: PausePoint) => {
        held.push(point);
      },
      retried: (reason: string) => retries.push(reason),
    } as unknown as SessionContext;
    let attempts = 0;
    const answer = await onLiveCount(
      ctx,
      node.count,
      async (attemptCtx, count) => {
        // A design without the bound would go on for ever: the test stops it well past the bound.
        if (++attempts > 10) throw new Error('retried past its bound');
        await attemptCtx.pause('after-read');
        // Another sale's outcome went unknown while this one read: its count is dropped under it.
        dropCount(count);
        expect(takeUnit(count, SKU)).toBe('dropped');
        return COUNT_DROPPED;
      },
      3,
    );
    expect(answer).toEqual({ outcome: 'GAVE_UP' });
    expect(attempts).toBe(3);
    expect(node.starts()).toBe(3);
    expect(retries).toEqual(['count-rebuilt', 'count-rebuilt']);
    expect(held).toEqual(['after-read']);
  });
});
