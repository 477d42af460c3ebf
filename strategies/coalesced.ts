/**
 * coalesced — request coalescing on hot-row's tables: the requests one node (worker thread or process)
 * has waiting for one sku share one transaction, so the stock row is locked once per batch instead of
 * once per reservation.
 *
 * A request's way. (1) Its key is read together with the keys of the node's other requests for the sku
 * that arrived by the next event-loop turn (one `= ANY` SELECT on the first one's connection); a recorded
 * key is answered there: REPLAY with its current status, KEY_REUSED for another user or sku. (2)
 * `after-read`, per request, nothing written or locked. (3) It joins the node's write queue for the sku,
 * which goes out as one batch at the next event-loop turn while fewer than WRITE_BATCHES_PER_LANE of the
 * lane's batches are running, else when one ends. No timer: a batch is whatever waited, and under load
 * that is what arrived while the previous batches ran (group commit). (4) The batch's transaction, on its
 * first member's connection: one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING` claims every
 * key (no conflict target, so the one-active-per-user index is an arbiter too); the keys of members that
 * claimed nothing are looked up; one `UPDATE sku_stock SET available = available - least(available, n)
 * … RETURNING old.available` (PostgreSQL 18) takes up to n units under the row lock; the rows beyond the
 * units taken are deleted (SOLD_OUT; BAD_REQUEST without a stock row); `before-commit` for each member
 * that got a unit; COMMIT; then every member is answered.
 *
 * How it stays correct: each decision is hot-row's, made for n requests at once. Units are taken only by
 * the conditional UPDATE, which READ COMMITTED re-evaluates against the newest committed count, so two
 * batches (two nodes, or two batches of one node) never take the same unit. The unique key and the
 * partial unique index are the arbiters; ON CONFLICT waits for an uncommitted conflicting row, then skips.
 * A member that claimed nothing is told apart key before user: a member of its batch that claimed its
 * key (same user: REPLAY HELD — n concurrent replays in one batch are HELD 1 + REPLAY n−1; another user:
 * KEY_REUSED), else a recorded row with its key (read by a new statement, which sees the row the insert
 * waited for), else a member of its batch with its user (USER_LIMIT), else USER_LIMIT (an active hold
 * committed by another transaction). A member that followed another of its batch is refused like it when
 * it was refused, as hot-row's waiter is after the owner's rollback to its savepoint. A member whose
 * `before-commit` pause throws (the harness rolls it back there) has its row deleted and its unit put back
 * in the same transaction before COMMIT, and only it sees the error: the members whose answer depended on
 * it (its replays, its user's other keys, the members refused a unit while it held one) go to the next
 * batch and are decided again, as hot-row's waiters are after its rollback. Answers come after COMMIT; an
 * error in the batch's SQL fails every member, nothing of the batch committed. Batches claim in (user,
 * key) order, so two batches claiming the same users and keys take the index entries in one order; only
 * a key reused by different users can cross another batch's claims into a deadlock (40P01, after
 * deadlock_timeout): the victim's claim was all it had done, and its members are claimed again one per
 * transaction, which holds nothing while it waits (reported through ctx.retried).
 *
 * Where the lock is held: from the UPDATE to COMMIT, one round trip and the leader's event-loop turn per
 * batch, whatever n is. The claims (index inserts) run before, while another batch holds the row; with
 * WRITE_BATCHES_PER_LANE = 2 one batch of a node claims while the other holds the row.
 *
 * Pause points: reserve `after-read` after the key read, before any write, so every request can be held
 * there on its own (contention-aborts holds 149 there while client 0 must get to `before-commit`: inside
 * a batch, one held member would hold up the others);
 * `before-commit` per member, with the batch's writes done and the row locked, the batch waiting for all
 * its members' hooks; expire `before-commit`. While a member is held at `before-commit` the limit on
 * running batches is lifted: the row is locked by a transaction the harness holds, so the lane's other
 * requests go to the database at once and wait on that row there, where pg_blocking_pids shows them (as
 * hot-row's do in false-sold-out, t2 and t3 blocked, then HELD).
 *
 * When it breaks, or what it costs: every member waits for its batch (round trips, and the slowest
 * member's pause hook). A request held at `after-read` has claimed nothing yet (memory-quota's order,
 * not hot-row's): in replay-race, user-race and key-two-users the second request goes ahead unblocked
 * and the held one then answers REPLAY, USER_LIMIT or KEY_REUSED. Requests of one node wait in its queue, not in the database, while
 * WRITE_BATCHES_PER_LANE batches wait on a row some other operation holds (an expiry held at its own
 * `before-commit`): an interleaving sending a third reserve then would see it neither blocked nor done
 * (no scenario does). Admission defeats it: a gate that lets 4 requests in caps a batch at 4, and each
 * pays 5 round trips (read, BEGIN, INSERT, UPDATE, COMMIT). Coalescing is per node, so N nodes make N
 * lockers; sessions without a node identity are not coalesced. A crash loses the open batch like any
 * transaction (nothing committed, nothing answered). Claimed at READ COMMITTED (the UPDATE's re-check,
 * ON CONFLICT's wait); at REPEATABLE READ one 40001 fails its whole batch (contention: HELD 40, SOLD_OUT
 * 36, 74 × 40001; SERIALIZABLE: HELD 1, 149 × 40001; never oversold). Needs PostgreSQL 18 (`RETURNING
 * old`).
 *
 * Lifecycle: hot-row's (confirm, release and expire move rows only `WHERE status = 'HELD'` and return
 * stock in the same statement).
 *
 * Last measured (embedded PostgreSQL 18.4, synchronous_commit=off, 2 cores shared with other engineers'
 * runs, load average 9–14, 2026-11-30): every scenario passes (disable-vs-reserve not covered: no
 * disable), duplicate-key HELD 1 + REPLAY 15 in 20 runs, contention HELD 40 / SOLD_OUT 110 in 20; with
 * `--permutations all` no order of false-sold-out, user-race, replay-race, key-two-users or the two
 * expiry races fails. `bench --strategy hot-row,coalesced --clients 1,16,150 --admission 4:8`, three runs
 * (each the median of its 3 interleaved trials; reservations/s, p99 ms): coalesced at 150 clients 15,042
 * (67), 21,974 (35), 19,153 (41) — median 19,153, against hot-row behind 4:8 in the same runs 1,600
 * (168), 1,716 (153), 1,891 (109): 9.4×, 12.8×, 10.1×; hot-row ungated 377, 458, 1,065. Medians at 16
 * clients 7,263 (hot-row 1,547); at 1 client 1,186 (hot-row 1,722: the read round trip and two
 * event-loop turns); coalesced behind 4:8 at 150, 1,315 (hot-row 1,716). Where the time goes: lock
 * waiters 0.05–0.08 backends on average (hot-row ungated: 50); at 19–22k/s the run got 0.2–0.24 cores
 * for the node process and 0.6–0.7 for the server of 2 busy cores, about 10 µs and 31 µs per
 * reservation. On a quiet machine (150 clients, `--stock 2000000`) it reached 65–67k/s with the node
 * process at 0.43 cores and the backends at 1.45 (6.5 µs and 22 µs per reservation): CPU-bound, not
 * lock-bound, and the bench's default 200,000 units then run out within warm-up + window (one earlier run
 * at 42,899/s failed its series on that). Tried and dropped: INSERT + UPDATE in one statement (26 µs of
 * server CPU per reservation, 52–54k/s against 60–66k/s), and that statement named (prepared once per
 * connection: 40–43 µs). WRITE_BATCHES_PER_LANE 1, 2 and 4 measured alike (65–67k/s at 150, CPU-bound;
 * within noise at 16); 2 keeps a node's claims overlapping its lock hold when it is not CPU-bound.
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
