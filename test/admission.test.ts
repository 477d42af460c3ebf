/**
 * The flash-sale lab's deterministic admission schedule: limit 2, one waiting place, 300 ms wait. The test
 * waits for the waiter to be in place by watching the waiting counter, never by sleeping; the 300 ms is the
 * wait under test.
 */
import { describe, expect, it } from 'vitest';
import { Admission, parseAdmission } from '../harness/gate/admission.ts';

const settings = { limit: 2, maxWaiting: 1, waitMs: 300 };

describe('Admission (limit 2, queue 1, wait 300 ms)', () => {
  it('rejects at once when the queue is full', async () => {
    const gate = new Admission(settings);
    expect(await gate.enter()).toBe('ADMITTED');
    expect(await gate.enter()).toBe('ADMITTED');
    const waiter = gate.enter();
    await gate.waitersInPlace(1, 5_000);
    expect(await gate.enter()).toBe('REJECTED_QUEUE_FULL');
    gate.exit();
    expect(await waiter).toBe('ADMITTED_AFTER_WAIT');
    expect(gate.counters()).toMatchObject({
      admitted: 3,
      admittedAfterWait: 1,
      rejectedQueueFull: 1,
      waiting: 0,
    });
  });

  it('times a waiter out when no permit comes back', async () => {
    const gate = new Admission(settings);
    await gate.enter();
    await gate.enter();
    expect(await gate.enter()).toBe('REJECTED_WAIT_TIMEOUT');
    expect(gate.counters()).toMatchObject({
      rejectedWaitTimeout: 1,
      waiting: 0,
      inFlight: 2,
      maxWaitingSeen: 1,
    });
  });

  it('admits a waiter after a permit is released, never exceeding the limit or the queue', async () => {
    const gate = new Admission(settings);
    await gate.enter();
    await gate.enter();
    const waiter = gate.enter();
    await gate.waitersInPlace(1, 5_000);
    expect(gate.counters().inFlight).toBe(2);
    gate.exit();
    expect(await waiter).toBe('ADMITTED_AFTER_WAIT');
    expect(gate.counters()).toMatchObject({ maxInFlightSeen: 2, maxWaitingSeen: 1, inFlight: 2 });
  });

  it('keeps its bounds under a burst of 50 requests that each hold a permit for a moment', async () => {
    const gate = new Admission({ limit: 4, maxWaiting: 8, waitMs: 2_000 });
    const tickets = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const ticket = await gate.enter();
        if (ticket.startsWith('ADMITTED')) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          gate.exit();
        }
        return ticket;
      }),
    );
    const c = gate.counters();
    expect(c.maxInFlightSeen).toBeLessThanOrEqual(4);
    expect(c.maxWaitingSeen).toBeLessThanOrEqual(8);
    expect(c.admitted + c.rejectedQueueFull + c.rejectedWaitTimeout).toBe(50);
    expect(tickets.filter((t) => t === 'REJECTED_QUEUE_FULL')).toHaveLength(c.rejectedQueueFull);
    expect(c.inFlight).toBe(0);
  });

  it('is shared by another view of the same buffer (another worker thread)', async () => {
    const gate = new Admission(settings);
    const elsewhere = new Admission(settings, gate.buffer);
    await gate.enter();
    await elsewhere.enter();
    expect(await gate.enter()).toBe('REJECTED_WAIT_TIMEOUT');
    expect(elsewhere.counters().rejectedWaitTimeout).toBe(1);
  });
});

describe('parseAdmission', () => {
  it.each([
    ['4:8', { limit: 4, maxWaiting: 8 }],
    ['1:0', { limit: 1, maxWaiting: 0 }],
    ['0:8', undefined],
    ['4', undefined],
    ['a:b', undefined],
  ])('%s', (text, expected) => {
    expect(parseAdmission(text)).toEqual(expected);
  });
});
