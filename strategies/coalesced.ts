/**
 * coalesced — request coalescing on hot-row's tables: the requests one node (worker thread or process)
 * has waiting for one sku share one transaction, so the stock row is locked once per batch. A request's
 * key is read with the keys the node's other requests sent by the next event-loop turn (a recorded key is
 * answered there: REPLAY, or KEY_REUSED); then it joins the node's write queue for the sku, which goes out
 * as one batch at the next turn while fewer than WRITE_BATCHES_PER_LANE of its batches run (no timer: a
 * batch is whatever waited). The batch, on its first member's connection: one `INSERT … SELECT FROM
 * unnest(…) ON CONFLICT DO NOTHING` claims every key, one `UPDATE sku_stock SET available = available -
 * least(available, n) … RETURNING old.available` takes up to n units, the rows beyond them are deleted
 * (SOLD_OUT), COMMIT, then every member is answered.
 *
 * How it stays correct: each decision is hot-row's, made for n requests at once. Units are taken only by
 * the conditional UPDATE, which READ COMMITTED re-evaluates against the newest count, so no two batches
 * take one unit. The unique key and the partial unique index are the arbiters (no conflict target, so both
 * are). A member that claimed nothing is told apart key before user: its key claimed in its batch (same
 * user: REPLAY HELD, else KEY_REUSED), a recorded row with its key, its user claimed in its batch, else
 * USER_LIMIT; one that followed a refused member is refused like it. A member rolled back at
 * `before-commit` has its row and unit undone before COMMIT, and the members whose answer depended on it
 * are decided again in the next batch. Batches claim in (user, key) order; only a key reused by different
 * users can deadlock (40P01), and the victim's members are claimed again one per transaction.
 *
 * When it breaks: every member waits for its batch and its slowest pause hook. A request held at
 * `after-read` has claimed nothing yet (memory-quota's order, not hot-row's): in replay-race, user-race and
 * key-two-users the other request goes ahead unblocked. While WRITE_BATCHES_PER_LANE batches wait on a row
 * another operation holds, the node's further requests wait in its queue, neither blocked in the database
 * nor done (no scenario sends one then). Admission caps a batch at its limit; coalescing is per node (N
 * nodes, N lockers; no node identity, no coalescing). At REPEATABLE READ one 40001 fails a whole batch
 * (never an oversell). Needs PostgreSQL 18 (`RETURNING old`).
 *
 * Lifecycle: hot-row's (confirm, release and expire move rows only `WHERE status = 'HELD'` and return
 * stock in the same statement).
 *
 * Pause points: reserve `after-read` after the key read, before any write, so one request can be held
 * alone; `before-commit` per member, the batch's writes done and the row locked. While a member is held
 * there the limit on running batches is lifted, so the lane's other requests wait on the row in the
 * database, where pg_blocking_pids shows them (hot-row's blocking in false-sold-out); expire `before-commit`.
 */
import type { ClientBase } from 'pg';
import type {
  ReservationStatus,
  ReserveRequest,
  ReserveResult,
  SessionContext,
  Strategy,
} from './contract.ts';
import { SQLSTATE, sqlstateOf } from './support/sqlstate.ts';
import {
  auditStockAndReservation,
  createStockAndReservation,
  stockRowLifecycle,
  stockRowRemaining,
} from './support/stock-and-reservation.ts';
import { inTransaction } from './support/transaction.ts';

/** Write batches of one node and sku in flight at once: one holding the row while the next claims. */
const WRITE_BATCHES_PER_LANE = 2;

const SQL = {
  recorded: 'SELECT request_key, user_id, sku, status FROM reservation WHERE request_key = ANY ($1::text[])',
  // Rows go in batch order, so among members with one key and user the first one owns the new row.
  claim: `INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
          SELECT r.request_key, r.user_id, $1, 'HELD', now() + make_interval(secs => r.ttl_ms / 1000.0)
            FROM unnest($2::text[], $3::text[], $4::float8[]) WITH ORDINALITY AS r(request_key, user_id, ttl_ms, n)
           ORDER BY r.n
          ON CONFLICT DO NOTHING
          RETURNING request_key, user_id`,
  take: `UPDATE sku_stock SET available = available - least(available, $2)
          WHERE sku = $1 RETURNING old.available AS before`,
  unclaim: 'DELETE FROM reservation WHERE request_key = ANY ($1::text[])',
  giveBack: `WITH gone AS (DELETE FROM reservation WHERE request_key = ANY ($2::text[]) RETURNING 1)
             UPDATE sku_stock SET available = available + (SELECT count(*) FROM gone)::int WHERE sku = $1`,
} as const;

interface RecordedRow {
  request_key: string;
  user_id: string;
  sku: string;
  status: ReservationStatus;
}

interface Waiter<T> {
  ctx: SessionContext;
  request: ReserveRequest;
  resolve(value: T): void;
  reject(error: unknown): void;
}

type Writer = Waiter<ReserveResult>;

/** What a batch decided for one member: an answer, an error of its own, or another batch. */
type Verdict = { answer: ReserveResult } | { error: unknown } | 'again';

const HELD: Verdict = { answer: { outcome: 'HELD', status: 'HELD' } };
const REPLAY_HELD: ReserveResult = { outcome: 'REPLAY', status: 'HELD' };

function compare(a: ReserveRequest, b: ReserveRequest): number {
  if (a.user !== b.user) return a.user < b.user ? -1 : 1;
  if (a.requestKey !== b.requestKey) return a.requestKey < b.requestKey ? -1 : 1;
  return 0;
}

function answerForRow(row: RecordedRow, request: ReserveRequest): ReserveResult {
  if (row.user_id !== request.user || row.sku !== request.sku) return { outcome: 'KEY_REUSED' };
  return { outcome: 'REPLAY', status: row.status };
}

/**
 * A member that claimed nothing because a member of its batch (the owner) claimed that key or user first:
 * it is answered `ifHeld` when the owner holds, refused like the owner, and decided again when the owner
 * rolled back (its row is gone).
 */
function follow(owner: Verdict | undefined, ifHeld: ReserveResult): Verdict {
  if (owner === undefined || owner === 'again' || 'error' in owner) return 'again';
  return owner.answer.outcome === 'HELD' ? { answer: ifHeld } : owner;
}

/** One node's requests for one sku. */
class Lane {
  private readonly reads: Waiter<ReserveResult | null>[] = [];
  private readonly writes: Writer[] = [];
  private running = 0;
  /** Batches waiting on their members' pause hooks. */
  private paused = 0;
  private turnBooked = false;

  constructor(private readonly sku: string) {}

  read(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult | null> {
    return this.enqueue(this.reads, ctx, request);
  }

  write(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult> {
    return this.enqueue(this.writes, ctx, request);
  }

  private enqueue<T>(queue: Waiter<T>[], ctx: SessionContext, request: ReserveRequest): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ ctx, request, resolve, reject });
      this.nextTurn();
    });
  }

  /** Whatever arrives before the next event-loop turn goes out together. */
  private nextTurn(): void {
    if (this.turnBooked) return;
    this.turnBooked = true;
    setImmediate(() => {
      this.turnBooked = false;
      this.flush();
    });
  }

  private flush(): void {
    const reads = this.reads.splice(0);
    const reader = reads[0];
    if (reader) void this.readBatch(reader.ctx.db, reads);
    const leader = this.writes[0];
    if (!leader || (this.running >= WRITE_BATCHES_PER_LANE && this.paused === 0)) return;
    this.running += 1;
    void this.writeBatch(leader.ctx.db, this.writes.splice(0)).finally(() => {
      this.running -= 1;
      if (this.writes.length > 0) this.nextTurn();
    });
  }

  private async readBatch(db: ClientBase, batch: Waiter<ReserveResult | null>[]): Promise<void> {
    try {
      const { rows } = await db.query<RecordedRow>(SQL.recorded, [batch.map((w) => w.request.requestKey)]);
      const byKey = new Map(rows.map((row) => [row.request_key, row]));
      for (const w of batch) {
        const row = byKey.get(w.request.requestKey);
        w.resolve(row ? answerForRow(row, w.request) : null);
      }
    } catch (error: unknown) {
      for (const w of batch) w.reject(error);
    }
  }

  private async writeBatch(db: ClientBase, batch: Writer[]): Promise<void> {
    // One order for every batch: two batches claiming the same users (and their keys) take the index
    // entries in the same order and cannot deadlock on them.
    batch.sort((a, b) => compare(a.request, b.request));
    let verdicts: Map<Writer, Verdict>;
    try {
      verdicts = await this.transaction(db, batch);
    } catch (error: unknown) {
      if (sqlstateOf(error) !== SQLSTATE.deadlockDetected) {
        verdicts = new Map(batch.map((w) => [w, { error }]));
      } else {
        // Only a key reused by other users can still cross another batch's claims. The claim was all the
        // batch had done (the row lock holder waits on nobody, so the cycle closed before any pause).
        // Claimed again one member per transaction, which holds nothing while it waits and cannot close
        // a cycle again.
        verdicts = new Map();
        for (const w of batch) {
          w.ctx.retried?.(SQLSTATE.deadlockDetected);
          const alone = await this.transaction(db, [w]).catch(
            (failure: unknown) => new Map<Writer, Verdict>([[w, { error: failure }]]),
          );
          for (const [member, verdict] of alone) verdicts.set(member, verdict);
        }
      }
    }
    for (const [w, verdict] of verdicts) {
      if (verdict === 'again') this.writes.push(w);
      else if ('error' in verdict) w.reject(verdict.error);
      else w.resolve(verdict.answer);
    }
  }

  private transaction(db: ClientBase, batch: Writer[]): Promise<Map<Writer, Verdict>> {
    return inTransaction(db, () => this.decide(db, batch));
  }

  /** The batch's transaction, up to COMMIT; returns each member's verdict. */
  private async decide(db: ClientBase, batch: Writer[]): Promise<Map<Writer, Verdict>> {
    const requests = batch.map((w) => w.request);
    const claimed = await db.query<{ request_key: string; user_id: string }>(SQL.claim, [
      this.sku,
      requests.map((r) => r.requestKey),
      requests.map((r) => r.user),
      requests.map((r) => r.ttlMs),
    ]);
    const newRows = new Set(claimed.rows.map((row) => JSON.stringify([row.request_key, row.user_id])));
    const owners: Writer[] = [];
    const ownerOfKey = new Map<string, Writer>();
    const ownerOfUser = new Map<string, Writer>();
    for (const w of batch) {
      if (!newRows.delete(JSON.stringify([w.request.requestKey, w.request.user]))) continue;
      owners.push(w);
      ownerOfKey.set(w.request.requestKey, w);
      ownerOfUser.set(w.request.user, w);
    }

    // Read before the row is locked: these keys belong to other transactions, which have ended.
    const outsiders = batch.filter((w) => !ownerOfKey.has(w.request.requestKey));
    const recorded = new Map<string, RecordedRow>();
    if (outsiders.length > 0) {
      const { rows } = await db.query<RecordedRow>(SQL.recorded, [
        outsiders.map((w) => w.request.requestKey),
      ]);
      for (const row of rows) recorded.set(row.request_key, row);
    }

    let taken = 0;
    let refusal: ReserveResult = { outcome: 'SOLD_OUT' };
    if (owners.length > 0) {
      const { rows } = await db.query<{ before: number }>(SQL.take, [this.sku, owners.length]);
      const before = rows[0]?.before;
      if (before === undefined) refusal = { outcome: 'BAD_REQUEST' };
      else taken = Math.min(before, owners.length);
    }
    const kept = owners.slice(0, taken);
    const refused = owners.slice(taken);
    if (refused.length > 0) await db.query(SQL.unclaim, [refused.map((w) => w.request.requestKey)]);

    const pauses = await this.held(Promise.allSettled(kept.map((w) => w.ctx.pause('before-commit'))));
    const verdicts = new Map<Writer, Verdict>();
    const aborted: Writer[] = [];
    kept.forEach((w, i) => {
      const pause = pauses[i];
      if (pause?.status === 'rejected') {
        aborted.push(w);
        verdicts.set(w, { error: pause.reason });
      } else {
        verdicts.set(w, HELD);
      }
    });
    if (aborted.length > 0)
      await db.query(SQL.giveBack, [this.sku, aborted.map((w) => w.request.requestKey)]);
    // A unit put back by an abort is there for the refused ones when they try again.
    for (const w of refused) verdicts.set(w, aborted.length > 0 ? 'again' : { answer: refusal });

    for (const w of batch) {
      if (verdicts.has(w)) continue;
      const { requestKey, user } = w.request;
      const keyOwner = ownerOfKey.get(requestKey);
      const userOwner = ownerOfUser.get(user);
      const row = recorded.get(requestKey);
      if (keyOwner) {
        const sameRequest = keyOwner.request.user === user;
        verdicts.set(
          w,
          follow(verdicts.get(keyOwner), sameRequest ? REPLAY_HELD : { outcome: 'KEY_REUSED' }),
        );
      } else if (row) verdicts.set(w, { answer: answerForRow(row, w.request) });
      else if (userOwner) verdicts.set(w, follow(verdicts.get(userOwner), { outcome: 'USER_LIMIT' }));
      else verdicts.set(w, { answer: { outcome: 'USER_LIMIT' } });
    }
    return verdicts;
  }

  /**
   * While a member is held at a pause point, the sku's row is locked by a transaction the harness holds:
   * every request of the lane then goes to the database at once and waits on that row there, where it
   * can be seen waiting (pg_blocking_pids), as hot-row's requests do.
   */
  private async held<T>(work: Promise<T>): Promise<T> {
    this.paused += 1;
    if (this.writes.length > 0) this.nextTurn();
    try {
      return await work;
    } finally {
      this.paused -= 1;
    }
  }
}

const lanes = new Map<string, Lane>();

function laneFor(ctx: SessionContext, sku: string): Lane {
  // Only the sessions of one node are known to reach the same database and schema.
  if (!ctx.node) return new Lane(sku);
  const id = JSON.stringify([ctx.node.incarnation, sku]);
  let lane = lanes.get(id);
  if (!lane) {
    lane = new Lane(sku);
    lanes.set(id, lane);
  }
  return lane;
}

const coalesced: Strategy = {
  id: 'coalesced',
  title: 'Request coalescing: one transaction per batch of waiting requests, one lock of the stock row',
  guarantee:
    "a node's waiting requests claim their keys in one INSERT … ON CONFLICT DO NOTHING and take units in one conditional UPDATE under the row lock; losers told apart key before user",
  expect: 'hold',
  minPostgres: { major: 18, needs: 'RETURNING old' },
  needs: ['returningOld'],
  pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },

  setup: (db, stock) => createStockAndReservation(db, stock, { oneActivePerUser: true }),

  async reserve(ctx, request) {
    const lane = laneFor(ctx, request.sku);
    const recorded = await lane.read(ctx, request);
    if (recorded) return recorded;
    await ctx.pause('after-read');
    return lane.write(ctx, request);
  },

  ...stockRowLifecycle,
  remaining: stockRowRemaining,
  audit: auditStockAndReservation,
};

export default coalesced;
