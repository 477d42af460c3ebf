import { describe, expect, it } from 'vitest';
import { SharedBarrier } from '../harness/driver/barrier.ts';
import { HarnessError } from '../harness/errors.ts';

describe('SharedBarrier', () => {
  it('holds waiters on one thread without blocking it, and releases all when the last party arrives', async () => {
    const barrier = SharedBarrier.create(3);
    const order: string[] = [];
    const a = barrier.arriveAndWait(5_000, 'test').then(() => order.push('a'));
    const b = barrier.arriveAndWait(5_000, 'test').then(() => order.push('b'));
    // The event loop still runs while two parties wait: this line executes before either is released.
    order.push('loop free');
    expect(barrier.released).toBe(false);
    await barrier.arriveAndWait(5_000, 'test');
    await Promise.all([a, b]);
    expect(barrier.released).toBe(true);
    expect(order[0]).toBe('loop free');
    expect(order.slice(1).sort()).toEqual(['a', 'b']);
  });

  it('counts a party that leaves as arrived', async () => {
    const barrier = SharedBarrier.create(2);
    const waiting = barrier.arriveAndWait(5_000, 'test');
    barrier.leave();
    await waiting;
    expect(barrier.released).toBe(true);
  });

  it('is shared by another view of the same buffer (as a worker thread sees it)', async () => {
    const barrier = SharedBarrier.create(2);
    const elsewhere = new SharedBarrier(barrier.buffer, barrier.parties);
    const waiting = barrier.arriveAndWait(5_000, 'test');
    await elsewhere.arriveAndWait(5_000, 'test');
    await waiting;
    expect(barrier.released).toBe(true);
  });

  it('fails with a harness error naming what was stuck when a party never comes', async () => {
    const barrier = SharedBarrier.create(2);
    await expect(barrier.arriveAndWait(50, 'hold at after-read')).rejects.toThrow(HarnessError);
    await expect(SharedBarrier.create(2).arriveAndWait(50, 'hold at after-read')).rejects.toThrow(
      /hold at after-read did not complete/,
    );
  });
});
