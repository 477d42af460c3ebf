/**
 * A gate shared by every instance (gate.ts): LIMIT permits in a store they all reach, so that at most LIMIT
 * requests are inside across all of them. Each instance keeps its own bounded queue in front: a request
 * first waits for one of its instance's LIMIT places (admission.ts, at most WAITING waiting), then, in that
 * place, for a permit from the store, trying again every RETRY_MS or as soon as a permit of its own instance
 * comes back — redis-semaphore's acquire loop. The whole wait is bounded by `waitMs`; a request that found
 * no permit by then is turned away (503, nothing written). A store that cannot be reached turns it away
 * (`closed`) or lets it through on its place alone (`open`): declared, counted, shown in /admission.
 */
import { setTimeout as nextTry } from 'node:timers/promises';
import { Admission, type AdmissionSettings, type Ticket } from './admission.ts';
import type { FailureMode, Gate, GateCounters, Pass } from './gate.ts';
import type { Permit, PermitStore } from './permit-store.ts';

/** How often a waiting request asks the store again (redis-semaphore's retryInterval is 10 ms). */
export const RETRY_MS = 5;

const NO_PASS = async () => undefined;

export class StoreGate implements Gate {
  private readonly places: Admission;
  private readonly wakers = new Set<() => void>();
  private readonly tally = {
    admitted: 0,
    admittedAfterWait: 0,
    timedOut: 0,
    inFlight: 0,
    maxInFlightSeen: 0,
    seeking: 0,
    maxWaitingSeen: 0,
    storeFailures: 0,
    failedOpen: 0,
  };

  constructor(
    readonly kind: 'postgres' | 'redis',
    readonly settings: AdmissionSettings,
    readonly failureMode: FailureMode,
    private readonly store: PermitStore,
  ) {
    this.places = new Admission(settings);
  }

  get description(): string {
    return this.store.description;
  }

  private admit(ticket: Ticket, leave: () => Promise<void>): Pass {
    const t = this.tally;
    t.admitted += 1;
    if (ticket === 'ADMITTED_AFTER_WAIT') t.admittedAfterWait += 1;
    t.inFlight += 1;
    t.maxInFlightSeen = Math.max(t.maxInFlightSeen, t.inFlight);
    let left = false;
    return {
      ticket,
      leave: async () => {
        if (left) return;
        left = true;
        await leave();
        t.inFlight -= 1;
        this.places.exit();
        for (const wake of this.wakers) wake();
      },
    };
  }

  /** The store's answer to one attempt: a permit, none free, or unreachable. */
  private async attempt(): Promise<Permit | 'none' | 'failed'> {
    try {
      return (await this.store.tryAcquire()) ?? 'none';
    } catch {
      this.tally.storeFailures += 1;
      return 'failed';
    }
  }

  /** Resolves after `ms`, or sooner when a permit of this instance comes back. */
  private async pause(ms: number): Promise<void> {
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.wakers.add(wake);
    const timer = new AbortController();
    try {
      await Promise.race([woken, nextTry(ms, undefined, { signal: timer.signal }).catch(() => undefined)]);
    } finally {
      timer.abort();
      this.wakers.delete(wake);
    }
  }

  private turnAway(ticket: Ticket): Pass {
    if (ticket === 'REJECTED_WAIT_TIMEOUT') this.tally.timedOut += 1;
    this.places.exit();
    return { ticket, leave: NO_PASS };
  }

  async enter(): Promise<Pass> {
    const arrived = performance.now();
    const place = await this.places.enter();
    if (place.startsWith('REJECTED_')) return { ticket: place, leave: NO_PASS };
    const t = this.tally;
    t.seeking += 1;
    t.maxWaitingSeen = Math.max(t.maxWaitingSeen, t.seeking + this.places.counters().waiting);
    try {
      for (let attempt = 0; ; attempt++) {
        const got = await this.attempt();
        if (got === 'failed') {
          if (this.failureMode === 'closed') return this.turnAway('REJECTED_GATE_UNAVAILABLE');
          t.failedOpen += 1;
          return this.admit(place, NO_PASS);
        }
        if (got !== 'none') {
          const ticket = place === 'ADMITTED' && attempt === 0 ? 'ADMITTED' : 'ADMITTED_AFTER_WAIT';
          // A store unreachable at release: the lease gives the permit back on its own.
          return this.admit(ticket, () => this.store.release(got).catch(() => undefined));
        }
        const left = this.settings.waitMs - (performance.now() - arrived);
        if (left <= 0) return this.turnAway('REJECTED_WAIT_TIMEOUT');
        await this.pause(Math.min(RETRY_MS, left));
      }
    } finally {
      t.seeking -= 1;
    }
  }

  counters(): GateCounters {
    const places = this.places.counters();
    const t = this.tally;
    return {
      admitted: t.admitted,
      admittedAfterWait: t.admittedAfterWait,
      rejectedQueueFull: places.rejectedQueueFull,
      rejectedWaitTimeout: places.rejectedWaitTimeout + t.timedOut,
      maxInFlightSeen: t.maxInFlightSeen,
      maxWaitingSeen: Math.max(places.maxWaitingSeen, t.maxWaitingSeen),
      waiting: places.waiting + t.seeking,
      inFlight: t.inFlight,
      kind: this.kind,
      failureMode: this.failureMode,
      storeFailures: t.storeFailures,
      failedOpen: t.failedOpen,
      leasesLost: this.store.leasesLost(),
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
