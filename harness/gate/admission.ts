/**
 * Bounded admission in front of the database (the flash-sale lab's in-process admission): at most `limit`
 * requests inside at once, at most `maxWaiting` waiting, a waiter gives up after `waitMs`, and a request that
 * finds the queue full is rejected at once, before it touches the database.
 *
 * The state lives in a SharedArrayBuffer so every worker thread of one process shares one gate. A free
 * permit is taken at once (like a fair Semaphore's untimed tryAcquire, which barges); otherwise the
 * request counts itself as waiting first and undoes that when the count is over the bound, so waiters never
 * exceed it. Waiters sleep with `Atomics.waitAsync` and each exit wakes the longest waiter (FIFO); a woken
 * waiter that loses the permit to a newcomer waits again.
 */
import { setTimeout as nextLook } from 'node:timers/promises';

const CELL = {
  permits: 0,
  waiting: 1,
  inFlight: 2,
  wake: 3,
  admitted: 4,
  admittedAfterWait: 5,
  rejectedQueueFull: 6,
  rejectedWaitTimeout: 7,
  maxInFlightSeen: 8,
  maxWaitingSeen: 9,
} as const;
const CELLS = Object.keys(CELL).length;

/** REJECTED_GATE_UNAVAILABLE: only a shared gate gives it, when its store cannot be reached (gate.ts). */
export type Ticket =
  | 'ADMITTED'
  | 'ADMITTED_AFTER_WAIT'
  | 'REJECTED_QUEUE_FULL'
  | 'REJECTED_WAIT_TIMEOUT'
  | 'REJECTED_GATE_UNAVAILABLE';

export interface AdmissionSettings {
  limit: number;
  maxWaiting: number;
  waitMs: number;
}

export interface AdmissionCounters {
  admitted: number;
  admittedAfterWait: number;
  rejectedQueueFull: number;
  rejectedWaitTimeout: number;
  maxInFlightSeen: number;
  maxWaitingSeen: number;
  waiting: number;
  inFlight: number;
}

export const MAX_ADMISSION_LIMIT = 1000;
export const MAX_ADMISSION_WAITING = 10_000;

/** `4:8` → limit 4, 8 waiting; plain decimals only. */
export function parseAdmission(text: string): { limit: number; maxWaiting: number } | undefined {
  const match = /^(0|[1-9][0-9]*):(0|[1-9][0-9]*)$/.exec(text);
  if (!match) return undefined;
  const limit = Number(match[1]);
  const maxWaiting = Number(match[2]);
  return limit >= 1 && limit <= MAX_ADMISSION_LIMIT && maxWaiting <= MAX_ADMISSION_WAITING
    ? { limit, maxWaiting }
    : undefined;
}

function raiseMax(cells: Int32Array, cell: number, value: number): void {
  for (let seen = Atomics.load(cells, cell); value > seen; seen = Atomics.load(cells, cell)) {
    if (Atomics.compareExchange(cells, cell, seen, value) === seen) return;
  }
}

export class Admission {
  private readonly cells: Int32Array;

  constructor(
    readonly settings: AdmissionSettings,
    readonly buffer: SharedArrayBuffer = Admission.createBuffer(settings.limit),
  ) {
    this.cells = new Int32Array(buffer);
  }

  static createBuffer(limit: number): SharedArrayBuffer {
    const buffer = new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT);
    Atomics.store(new Int32Array(buffer), CELL.permits, limit);
    return buffer;
  }

  private tryAcquire(): boolean {
    for (
      let free = Atomics.load(this.cells, CELL.permits);
      free > 0;
      free = Atomics.load(this.cells, CELL.permits)
    ) {
      if (Atomics.compareExchange(this.cells, CELL.permits, free, free - 1) === free) {
        raiseMax(this.cells, CELL.maxInFlightSeen, Atomics.add(this.cells, CELL.inFlight, 1) + 1);
        return true;
      }
    }
    return false;
  }

  async enter(): Promise<Ticket> {
    if (this.tryAcquire()) {
      Atomics.add(this.cells, CELL.admitted, 1);
      return 'ADMITTED';
    }
    const waiting = Atomics.add(this.cells, CELL.waiting, 1) + 1;
    if (waiting > this.settings.maxWaiting) {
      Atomics.sub(this.cells, CELL.waiting, 1);
      Atomics.add(this.cells, CELL.rejectedQueueFull, 1);
      return 'REJECTED_QUEUE_FULL';
    }
    raiseMax(this.cells, CELL.maxWaitingSeen, waiting);
    const deadline = performance.now() + this.settings.waitMs;
    for (;;) {
      const wake = Atomics.load(this.cells, CELL.wake);
      if (this.tryAcquire()) {
        Atomics.sub(this.cells, CELL.waiting, 1);
        Atomics.add(this.cells, CELL.admitted, 1);
        Atomics.add(this.cells, CELL.admittedAfterWait, 1);
        return 'ADMITTED_AFTER_WAIT';
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        Atomics.sub(this.cells, CELL.waiting, 1);
        Atomics.add(this.cells, CELL.rejectedWaitTimeout, 1);
        return 'REJECTED_WAIT_TIMEOUT';
      }
      const sleep = Atomics.waitAsync(this.cells, CELL.wake, wake, left);
      if (sleep.async) await sleep.value;
    }
  }

  /** Gives the permit back and wakes the longest waiter; call once per admitted request, in `finally`. */
  exit(): void {
    Atomics.sub(this.cells, CELL.inFlight, 1);
    Atomics.add(this.cells, CELL.permits, 1);
    Atomics.add(this.cells, CELL.wake, 1);
    Atomics.notify(this.cells, CELL.wake, 1);
  }

  counters(): AdmissionCounters {
    const get = (cell: number) => Atomics.load(this.cells, cell);
    return {
      admitted: get(CELL.admitted),
      admittedAfterWait: get(CELL.admittedAfterWait),
      rejectedQueueFull: get(CELL.rejectedQueueFull),
      rejectedWaitTimeout: get(CELL.rejectedWaitTimeout),
      maxInFlightSeen: get(CELL.maxInFlightSeen),
      maxWaitingSeen: get(CELL.maxWaitingSeen),
      waiting: get(CELL.waiting),
      inFlight: get(CELL.inFlight),
    };
  }

  /** Resolves once `n` requests are waiting: how a test knows a waiter is in place without a sleep. */
  async waitersInPlace(n: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (Atomics.load(this.cells, CELL.waiting) < n) {
      if (performance.now() > deadline) throw new Error(`${n} waiter(s) never arrived`);
      await nextLook(1);
    }
  }
}
