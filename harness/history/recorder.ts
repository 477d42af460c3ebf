/**
 * Records a case's history as it happens (history.ts): each operation with its invocation and completion
 * on the harness clock — `performance.timeOrigin + performance.now()`, which worker threads share — and
 * the bounds on the database clock those map to. The mapping is measured once per case: the database's
 * `clock_timestamp()` read between two readings of the harness clock gives the offset, and half that round
 * trip (plus a margin for the two clocks' drift over a case) its uncertainty.
 */
import type { ClientBase } from 'pg';
import type { Ending, History, HistoryOperation } from './history.ts';

/** The session the harness's final read runs on: every other operation of the case completed before it. */
export const FINAL_READ_SESSION = 'final-read';

/** The harness clock, ms: one origin for the main thread and every worker thread. */
export function harnessNow(): number {
  return performance.timeOrigin + performance.now();
}

/** database clock = harness clock + offset, within ± slack. */
export interface ClockMapping {
  offset: number;
  slack: number;
}

/** Drift between the two clocks allowed over one case, on top of the measured round trip. */
const DRIFT_MS = 2;

export async function measureClockMapping(db: ClientBase): Promise<ClockMapping> {
  const before = harnessNow();
  const { rows } = await db.query<{ at: number }>(
    'SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS at',
  );
  const after = harnessNow();
  const at = Number(rows[0]?.at);
  return { offset: at - (before + after) / 2, slack: (after - before) / 2 + DRIFT_MS };
}

/** A black box's clock is its own: nothing is measured, so nothing is claimed beyond a wide margin. */
export const UNMEASURED_CLOCK: ClockMapping = { offset: 0, slack: 1_000 };

/** Where and when an operation ran, as the caller knows it. */
export interface Invocation {
  session: string;
  node?: string | undefined;
  invokedAt: number;
  /** HistoryOperation.resumedAt. */
  resumedAt?: number | undefined;
}

/** `C`, `A`: the contract's calls and answers (history.ts). */
export class HistoryRecorder<C, A> {
  private readonly operations: Omit<HistoryOperation<C, A>, 'id'>[] = [];

  constructor(private readonly clock: ClockMapping) {}

  /**
   * How far past `ms` the database clock must move, from a reading taken after every earlier operation
   * completed, for this history to show each later operation invoked at least `ms` after each earlier
   * one completed: the history knows the two times to ± slack each, and the database clock is known
   * from the harness's to ± slack, on both ends of the wait — 4 × slack in all.
   */
  distinguishableWait(ms: number): number {
    return ms + 4 * this.clock.slack;
  }

  /** An operation whose invocation and completion the caller measured. */
  add(call: C, at: Invocation, completedAt: number | null, ending: Ending<A>): void {
    const { offset, slack } = this.clock;
    this.operations.push({
      call,
      session: at.session,
      node: at.node,
      invokedAt: at.invokedAt,
      ...(at.resumedAt === undefined ? {} : { resumedAt: at.resumedAt }),
      completedAt: ending.kind === 'ok' ? completedAt : null,
      db: {
        from: at.invokedAt + offset - slack,
        to: ending.kind === 'ok' && completedAt !== null ? completedAt + offset + slack : null,
      },
      ending,
    });
  }

  /**
   * Runs `work` as one operation: invoked now, completed when it resolves, with the answer `answerOf`
   * makes of its value; if it throws, its ending is unknown (it may have taken effect) and the error goes on.
   */
  async around<T>(
    call: C,
    where: { session: string; node?: string | undefined },
    work: () => Promise<T>,
    answerOf: (value: T) => A,
  ): Promise<T> {
    const invokedAt = harnessNow();
    try {
      const value = await work();
      this.add(call, { ...where, invokedAt }, harnessNow(), { kind: 'ok', answer: answerOf(value) });
      return value;
    } catch (error: unknown) {
      this.add(call, { ...where, invokedAt }, null, { kind: 'unknown', why: 'it threw' });
      throw error;
    }
  }

  history(stock: readonly { sku: string; total: number }[]): History<C, A> {
    const ordered = [...this.operations].sort((a, b) => a.invokedAt - b.invokedAt);
    return { operations: ordered.map((op, id) => ({ ...op, id })), stock };
  }
}
