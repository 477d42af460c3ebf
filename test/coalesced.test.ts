/**
 * coalesced: every scenario through the real command line, the exact counts that show batching keeps
 * hot-row's answers (repeated, for intermittent races), and direct calls for the two paths a scenario
 * cannot force: a member rolled back at before-commit inside a batch with its own replay and with members
 * refused a unit, and two nodes' batches that deadlock on each other's claims.
 */
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { sessionOptions } from '../harness/driver/case-connection.ts';
import { nodeIdentity } from '../harness/driver/node-identity.ts';
import coalesced from '../strategies/coalesced.ts';
import type { NodeIdentity, ReserveRequest, SessionContext } from '../strategies/contract.ts';
import { useRunDatabase } from './db-fixture.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

/** coalesced's own audit (a strategy module always has one; only a black box has none). */
function auditOf(db: pg.Client) {
  if (!coalesced.audit) throw new Error('coalesced has no audit');
  return coalesced.audit(db);
}

const serverUrl = inject('serverUrl');
const STRATEGY = 'strategies/coalesced.ts';
const SKU = 'sku-lab-01';

describe('coalesced through the command line', () => {
  it('passes every scenario; the two disable scenarios are not covered (no disable)', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['coalesced']);
    const notPassed = report.cases.filter((c) => c.status !== 'pass' && c.status !== 'n/a');
    expect(notPassed.map((c) => `${c.id}: ${c.boundary}`)).toEqual([]);
    const gaps = report.cases.flatMap((c) =>
      c.status === 'n/a' && c.coverage.missing.length > 0 ? [`${c.scenario}: ${c.coverage.missing}`] : [],
    );
    expect(gaps).toEqual(['disable-in-flight: no disable', 'disable-vs-reserve: no disable']);
    expect(measured(report.cases, 'contention/coalesced').outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(measured(report.cases, 'user-limit/coalesced').outcomes).toEqual({ HELD: 1, USER_LIMIT: 7 });
    expect(measured(report.cases, 'false-sold-out/coalesced').steps?.filter((s) => s.blocked)).toHaveLength(
      2,
    );
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  });

  it('duplicate-key: HELD 1 + REPLAY 15 in 20 runs in a row', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      STRATEGY,
      '--scenario',
      'duplicate-key',
      '--repeat',
      '20',
    ]);
    expect(report.cases).toHaveLength(20);
    for (const c of report.cases) {
      expect(c.status).toBe('pass');
      expect(c.outcomes).toEqual({ HELD: 1, REPLAY: 15 });
    }
    expect(run.code).toBe(0);
  });

  it('contention: HELD 40 / SOLD_OUT 110 in 10 runs in a row, drift 0', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      STRATEGY,
      '--scenario',
      'contention',
      '--repeat',
      '10',
    ]);
    expect(report.cases).toHaveLength(10);
    for (const c of report.cases) {
      expect(c.status).toBe('pass');
      expect(c.outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
      expect(c.invariants).toMatchObject({ drift: 0, oversold: 0, available: 0, active: 40 });
    }
    expect(run.code).toBe(0);
  });
});

describe('coalesced batches, called directly', () => {
  const { db, admin } = useRunDatabase();
  const opened: pg.Client[] = [];

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.end()));
  });

  async function freshSchema(label: string, total: number): Promise<string> {
    const schema = await db().createCaseSchema(label);
    await admin().query(`SET search_path TO ${schema}`);
    await coalesced.setup(admin(), [{ sku: SKU, total }]);
    return schema;
  }

  async function connect(schema: string): Promise<{ client: pg.Client; pid: number }> {
    const client = new pg.Client({
      connectionString: db().connectionString,
      options: sessionOptions({ schema }),
    });
    opened.push(client);
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]?.pid;
    if (pid === undefined) throw new Error('no backend pid');
    return { client, pid };
  }

  class Aborted extends Error {}

  /** A reserve on its own connection; `abortAt` makes its pause throw there, as the harness's rollback does. */
  async function reserver(schema: string, node: NodeIdentity, abortAt?: 'before-commit') {
    const { client, pid } = await connect(schema);
    const retried: string[] = [];
    const ctx: SessionContext = {
      db: client,
      node,
      pause: async (point) => {
        if (point === abortAt) throw new Aborted(point);
      },
      retried: (reason) => retried.push(reason),
    };
    const reserve = (requestKey: string, user: string) =>
      coalesced.reserve(ctx, { requestKey, user, sku: SKU, ttlMs: 60_000 } satisfies ReserveRequest).then(
        (answer) => answer.outcome,
        (error: unknown) => (error instanceof Aborted ? 'ROLLED_BACK' : Promise.reject(error)),
      );
    return { pid, retried, reserve };
  }

  /** Until the database shows one of `pids` waiting on one of `blockers` (observed, never timed). */
  async function waitUntilBlocked(pids: number[], blockers: number[]): Promise<void> {
    for (let look = 0; look < 2000; look++) {
      const { rowCount } = await admin().query(
        'SELECT 1 FROM pg_stat_activity WHERE pid = ANY ($1) AND pg_blocking_pids(pid) && $2::int[]',
        [pids, blockers],
      );
      if (rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`none of ${pids} was seen waiting on ${blockers}`);
  }

  it('a member rolled back at before-commit takes nothing else down: its replay and the refused members are decided again', async () => {
    const schema = await freshSchema('coalesced_abort', 3);
    const node = nodeIdentity(schema, 0, 1);
    const aborting = await reserver(schema, node, 'before-commit');
    const others = await Promise.all(Array.from({ length: 5 }, () => reserver(schema, node)));
    const [replay, b, c, d, e] = others;
    if (!replay || !b || !c || !d || !e) throw new Error('missing reserver');
    // Sent in one turn: one read batch, then one write batch of six, three units for five users.
    const answers = await Promise.all([
      aborting.reserve('k-a', 'u-a'),
      replay.reserve('k-a', 'u-a'),
      b.reserve('k-b', 'u-b'),
      c.reserve('k-c', 'u-c'),
      d.reserve('k-d', 'u-d'),
      e.reserve('k-e', 'u-e'),
    ]);
    // k-a's first request rolled back: its replay, and the users refused while it held a unit, went to
    // the next batch, where the replay took the unit that came back.
    expect(answers).toEqual(['ROLLED_BACK', 'HELD', 'HELD', 'HELD', 'SOLD_OUT', 'SOLD_OUT']);
    expect(await coalesced.remaining(admin(), SKU)).toBe(0);
    expect(await coalesced.status(admin(), 'k-a')).toBe('HELD');
    const audit = await auditOf(admin());
    expect(audit).toMatchObject({ duplicateActive: 0, duplicateKey: 0 });
    expect([...audit.activeKeys].sort()).toEqual(['k-a', 'k-b', 'k-c']);
  });

  it('two batches that deadlock on crossed claims: the victim batch is claimed again member by member (40P01 retried once)', async () => {
    const schema = await freshSchema('coalesced_deadlock', 10);
    const [nodeA, nodeB] = [nodeIdentity(schema, 0, 2), nodeIdentity(schema, 1, 2)];
    // An uncommitted hold of user-b makes node A's batch stop between its two claims.
    const { client: holder, pid: holderPid } = await connect(schema);
    await holder.query('BEGIN');
    await holder.query(
      `INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
       VALUES ('k-x', 'user-b', $1, 'HELD', now() + interval '1 hour')`,
      [SKU],
    );
    const a = await Promise.all([reserver(schema, nodeA), reserver(schema, nodeA)]);
    const b = await Promise.all([reserver(schema, nodeB), reserver(schema, nodeB)]);
    const [a1, a2] = a;
    const [b1, b2] = b;
    if (!a1 || !a2 || !b1 || !b2) throw new Error('missing reserver');
    const fromA = Promise.all([a1.reserve('k-1', 'user-a'), a2.reserve('k-2', 'user-b')]);
    await waitUntilBlocked([a1.pid, a2.pid], [holderPid]);
    // Node B claims k-2 first (user-c sorts before user-d), then waits for A's k-1.
    const fromB = Promise.all([b1.reserve('k-2', 'user-c'), b2.reserve('k-1', 'user-d')]);
    await waitUntilBlocked([b1.pid, b2.pid], [a1.pid, a2.pid]);
    // A now needs k-2, which B holds: a deadlock the server breaks after deadlock_timeout.
    await holder.query('ROLLBACK');
    const [a1k1, a2k2, b1k2, b2k1] = [...(await fromA), ...(await fromB)];
    // Each key is held by exactly one of its two senders; the other was told KEY_REUSED.
    expect([a1k1, b2k1].sort()).toEqual(['HELD', 'KEY_REUSED']);
    expect([a2k2, b1k2].sort()).toEqual(['HELD', 'KEY_REUSED']);
    // One batch was the victim: each of its members was told of the retry once.
    const retried = [...a, ...b].map((r) => r.retried);
    expect(retried.filter((r) => r.length > 0)).toEqual([['40P01'], ['40P01']]);
    const audit = await auditOf(admin());
    expect([...audit.activeKeys].sort()).toEqual(['k-1', 'k-2']);
    expect(await coalesced.remaining(admin(), SKU)).toBe(8);
  });
});
