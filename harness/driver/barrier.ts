/**
 * A barrier shared by worker threads: the parties arrive on a SharedArrayBuffer and wait with
 * `Atomics.waitAsync`, so many virtual clients on one thread can wait at once without blocking its event
 * loop. A party that will never reach the barrier (its request ended earlier) `leave`s: it counts as
 * arrived without waiting, so the others are not held forever.
 */
import { Errors } from '../errors.ts';

const ARRIVED = 0;
const RELEASED = 1;

export class SharedBarrier {
  private readonly cells: Int32Array;

  constructor(
    readonly buffer: SharedArrayBuffer,
    readonly parties: number,
  ) {
    this.cells = new Int32Array(buffer);
  }

  static create(parties: number): SharedBarrier {
    return new SharedBarrier(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT), parties);
  }

  /** How many parties have arrived (or left) so far. */
  get arrived(): number {
    return Atomics.load(this.cells, ARRIVED);
  }

  get released(): boolean {
    return Atomics.load(this.cells, RELEASED) === 1;
  }

  private arrive(): boolean {
    const arrived = Atomics.add(this.cells, ARRIVED, 1) + 1;
    if (arrived < this.parties) return false;
    Atomics.store(this.cells, RELEASED, 1);
    Atomics.notify(this.cells, RELEASED);
    return true;
  }

  leave(): void {
    this.arrive();
  }

  async arriveAndWait(timeoutMs: number, what: string): Promise<void> {
    if (this.arrive()) return;
    const wait = Atomics.waitAsync(this.cells, RELEASED, 0, timeoutMs);
    const result = wait.async ? await wait.value : wait.value;
    if (result === 'timed-out') throw Errors.barrierTimeout(what, timeoutMs / 1000);
  }
}
