/**
 * Issue 25, item 1: `serve` when PostgreSQL cuts its connections. A backend ended under a request (an
 * admin's pg_terminate_backend, a failover, idle_in_transaction_session_timeout) must not end the
 * service: the request it served is answered 503 INDETERMINATE (docs/http-api.md), the others go on, and
 * the counts add up. After the server restarts, the service goes on answering and its shutdown still drops
 * its run database through a connection of its own. A real `serve` child over real HTTP, a TMPDIR of its
 * own to see what it leaves; every wait is on observed state (the lock view, the answers).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { withDatabase } from '../harness/database/database.ts';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { getReservation, getStock, type HttpAnswer, postReserve } from '../harness/http/loopback-client.ts';
import { type Served, startServe } from './served.ts';

const serverUrl = inject('serverUrl');
const SKU = 'sku-lab-01';
const request = (key: string) => ({ requestKey: key, user: `u-${key}`, sku: SKU, ttlMs: 3_600_000 });

async function until<T>(what: string, look: () => Promise<T>, done: (seen: T) => boolean): Promise<T> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const seen = await look();
    if (done(seen)) return seen;
    if (performance.now() > deadline)
      throw new Error(`${what} never happened (last seen ${JSON.stringify(seen)})`);
    await nextLook(10);
  }
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

const tmps: string[] = [];
afterAll(() => {
  for (const tmp of tmps) rmSync(tmp, { recursive: true, force: true });
});

/** A TMPDIR of the child's own: its state file, if it left one, is found there. */
function ownTmp(): string {
  const tmp = mkdtempSync(join(tmpdir(), 'reservebench-serve-faults-'));
  tmps.push(tmp);
  return tmp;
}

function stateFilesIn(tmp: string): string[] {
  try {
    return readdirSync(join(tmp, 'reservebench-state'));
  } catch {
    return [];
  }
}

async function runDatabases(server: pg.Client, name: string): Promise<number> {
  const { rows } = await server.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_database WHERE datname = $1',
    [name],
  );
  return rows[0]?.n ?? 0;
}

/** Every table of the strategy's schema locked in an open transaction: a statement on them waits. */
async function lockEveryTable(locker: pg.Client): Promise<void> {
  const { rows } = await locker.query<{ name: string }>(
    "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname LIKE 'c0%'",
  );
  expect(rows.length).toBeGreaterThan(0);
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE ${rows.map((t) => t.name).join(', ')} IN ACCESS EXCLUSIVE MODE`);
}

/**
 * Once `n` of the service's backends wait on the lock (each inside a request's statement), terminates
 * them and waits until they are gone.
 */
async function terminateWaiters(server: pg.Client, database: string, n: number): Promise<void> {
  const waiting = await until(
    `${n} service backends waiting on the lock`,
    async () =>
      (
        await server.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = $1 AND application_name = 'reservebench-service'
              AND cardinality(pg_blocking_pids(pid)) > 0`,
          [database],
        )
      ).rows.map((r) => r.pid),
    (pids) => pids.length === n,
  );
  await server.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [waiting]);
  await until(
    'the terminated backends gone',
    async () =>
      (
        await server.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])',
          [waiting],
        )
      ).rows[0]?.n,
    (left) => left === 0,
  );
}

/** SIGTERM: exit 0, one `stopped`, nothing on stderr. */
async function stopsCleanly(served: Served): Promise<void> {
  served.child.kill('SIGTERM');
  expect(await served.exited, served.stderr()).toBe(0);
  expect(served.stderr()).toBe('');
  expect(served.lines.at(-1)).toBe('stopped');
}

const countBy = (answers: readonly HttpAnswer[]) => {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.code} ${a.fields.outcome ?? ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

describe('serve when the database cuts its connections', () => {
  it('backends terminated mid-request: the service stays up, those requests answer 503 INDETERMINATE, the counts add up', async () => {
    const tmp = ownTmp();
    const LIMIT = 8;
    const served = await startServe(
      serverUrl,
      ['--strategy', 'hot-row', '--stock', '20', '--admission', `${LIMIT}:64`, '--wait-ms', '60000'],
      { TMPDIR: tmp },
    );
    const database = /its own run database (reservebench_\w+)/.exec(served.listening)?.[1] ?? '';
    expect(database).not.toBe('');
    const server = await connected(serverUrl);
    const locker = await connected(withDatabase(serverUrl, database));
    try {
      await lockEveryTable(locker);
      const keys = Array.from({ length: 50 }, (_, i) => `cut-${String(i).padStart(2, '0')}`);
      const answering = Promise.all(keys.map((key) => postReserve(served.url, request(key))));
      await terminateWaiters(server, database, LIMIT);
      await locker.query('ROLLBACK');
      const answers = await answering;

      // The 8 cut in their first statement wrote nothing; the 42 behind them sold the 20 units.
      expect(countBy(answers)).toEqual({ '201 HELD': 20, '409 SOLD_OUT': 22, '503 INDETERMINATE': LIMIT });
      const cut = keys.filter((_, i) => answers[i]?.fields.outcome === 'INDETERMINATE');
      for (const key of cut) {
        const a = answers[keys.indexOf(key)];
        // It may have committed: no Retry-After (that says nothing was written), a reason, the way to learn.
        expect(a?.retryAfter).toBeNull();
        expect(a?.fields.reason).toMatch(/connection .*lost.*same request_key/);
      }
      // Still up, and its accounting adds up: every admitted request answered, each by one code.
      const counters = (await (await fetch(`${served.url}/admission`)).json()) as Record<string, number>;
      expect(counters).toMatchObject({
        admitted: 50,
        rejectedQueueFull: 0,
        rejectedWaitTimeout: 0,
        inFlight: 0,
        connectionFailures: LIMIT,
        databaseErrors: 0,
      });
      // What it read back agrees: the 20 holds are the 20 answered HELD, nothing left; a cut request was
      // not recorded, so sending it again is a new attempt (sold out by now).
      expect(await getStock(served.url, SKU)).toMatchObject({ code: 200, fields: { remaining: '0' } });
      for (const [i, key] of keys.entries()) {
        const held = answers[i]?.code === 201;
        expect(await getReservation(served.url, key), key).toMatchObject({
          code: held ? 200 : 404,
          fields: { status: held ? 'HELD' : 'NOT_FOUND' },
        });
      }
      for (const key of cut) {
        expect(await postReserve(served.url, request(key))).toMatchObject({
          code: 409,
          fields: { outcome: 'SOLD_OUT' },
        });
      }
      await stopsCleanly(served);
      expect(await runDatabases(server, database)).toBe(0);
      expect(stateFilesIn(tmp)).toEqual([]);
    } finally {
      served.child.kill('SIGKILL');
      await locker.end().catch(() => undefined);
      await server.end();
    }
  });

  it('a database restart: serve goes on answering, and its shutdown drops the run database (exit 0)', async () => {
    const tmp = ownTmp();
    const own = await startEmbeddedServer();
    let served: Served | undefined;
    try {
      served = await startServe(
        own.adminUrl,
        ['--strategy', 'hot-row', '--expire-every-ms', '100', '--allow-reset'],
        { TMPDIR: tmp },
      );
      const { url } = served;
      const database = /its own run database (reservebench_\w+)/.exec(served.listening)?.[1] ?? '';
      expect(await postReserve(url, request('before'))).toMatchObject({ code: 201 });
      // The embedded server commits asynchronously: flushed first, so the crash loses none of the tables.
      const checkpoint = await connected(own.adminUrl);
      await checkpoint.query('CHECKPOINT').finally(() => checkpoint.end());
      await own.crashAndRestart();
      // A reset goes through a connection of its own, never the one the crash cut.
      const reset = await fetch(`${url}/admin/reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ stock: [{ sku: SKU, total: 5 }] }),
      });
      expect(reset.status, await reset.clone().text()).toBe(200);
      expect(await reset.text()).toMatch(/^outcome=RESET$/m);
      // A request that meets a connection the crash cut is a 503; sent again with the same key it settles.
      const after = await until(
        'an answer other than 503 after the restart',
        () => postReserve(url, request('after')),
        (a) => a.code !== 503,
      );
      expect([201, 200], JSON.stringify(after)).toContain(after.code);
      expect(await getReservation(url, 'after')).toMatchObject({ code: 200, fields: { status: 'HELD' } });
      await stopsCleanly(served);
      const server = await connected(own.adminUrl);
      try {
        expect(await runDatabases(server, database)).toBe(0);
      } finally {
        await server.end();
      }
      expect(stateFilesIn(tmp)).toEqual([]);
    } finally {
      served?.child.kill('SIGKILL');
      await own.stop({ keepData: false });
    }
  });
});
