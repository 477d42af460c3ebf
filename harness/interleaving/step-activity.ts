/**
 * What a step's backend has been seen doing since the step was sent, look by look on the control
 * connection: the transactions it was in (pg_stat_activity.xact_start) and the last statement it
 * started (query_start). The engine tells a step that is making progress from one that is stuck by
 * these, and an operation that is retrying (a design that backs off instead of waiting on a lock) by
 * them or by its own `ctx.retried` calls.
 */

/** What one look at a session's backend saw. */
export interface BackendLook {
  /** The backends that hold it up (pg_blocking_pids). */
  blockingPids: readonly number[];
  /** When its current transaction and statement began (text, as the server prints them); null: none. */
  xactStart: string | null;
  queryStart: string | null;
}

/** Seen in this many transactions since it was sent, an operation is retrying. */
export const RETRYING_TRANSACTIONS = 3;

export class StepActivity {
  private readonly transactions = new Set<string>();
  private lastStatement?: string | null;

  /** `retriesAtSend`: the session's `ctx.retried` count when the step was sent. */
  constructor(private readonly retriesAtSend: number) {}

  /** Notes a look; true when the backend has started a statement since the look before it. */
  note(look: BackendLook): boolean {
    if (look.xactStart !== null) this.transactions.add(look.xactStart);
    const started = this.lastStatement !== undefined && look.queryStart !== this.lastStatement;
    this.lastStatement = look.queryStart;
    return started;
  }

  /** The operation said it retried since the step was sent, or was seen in enough transactions. */
  retrying(retriesNow: number): boolean {
    return retriesNow > this.retriesAtSend || this.transactions.size >= RETRYING_TRANSACTIONS;
  }
}
