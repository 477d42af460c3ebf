/** The suite only drops what it created, and the default run needs nothing but npm's embedded server. */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropOwnedDatabase, OWNED_MARKER, openRunDatabase } from '../harness/database/database.ts';
import { withLibpqSslModes } from '../harness/database/libpq-ssl-modes.ts';
import { HarnessError } from '../harness/errors.ts';
import { DEFAULT_JOBS } from '../harness/suite/default-jobs.ts';
import { cliArgv } from './cli-child.ts';
import { caseSchemasIn, dropKeptDatabases, keptDatabasesOf } from './kept-databases.ts';
import { runCli, runJson } from './run-cli.ts';

const execFileAsync = promisify(execFile);

const serverUrl = inject('serverUrl');
const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

describe('owned databases', () => {
  const server = new pg.Client({ connectionString: serverUrl });
  beforeAll(() => server.connect());
  afterAll(() => server.end());

  it('refuses to drop a database that does not carry the marker, even with the reservebench_ prefix', async () => {
    await server.query('DROP DATABASE IF EXISTS reservebench_not_ours');
    await server.query('CREATE DATABASE reservebench_not_ours');
    await expect(dropOwnedDatabase(server, 'reservebench_not_ours')).rejects.toThrow(HarnessError);
    const { rowCount } = await server.query(
      "SELECT 1 FROM pg_database WHERE datname = 'reservebench_not_ours'",
    );
    expect(rowCount).toBe(1);
    await server.query('DROP DATABASE reservebench_not_ours');
  });

  it('creates a marked run database and drops it again on a clean close', async () => {
    const db = await openRunDatabase({ databaseUrl: serverUrl });
    const marker = await server.query<{ comment: string }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [db.name],
    );
    expect(db.name).toMatch(/^reservebench_/);
    expect(marker.rows[0]?.comment).toBe(OWNED_MARKER);
    expect(await db.close({ keep: false })).toEqual([]);
    const after = await server.query('SELECT 1 FROM pg_database WHERE datname = $1', [db.name]);
    expect(after.rowCount).toBe(0);
  });
});

describe('default run on the embedded server', () => {
  it('starts its own server, runs, and leaves no server directory behind', async () => {
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('reservebench-pg-'));
    const run = await runCli([
      'run',
      '--json',
      '--scenario',
      'key-reuse',
      '--strategy',
      'hot-row',
      '--reports',
      reports,
    ]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      environment: { database: string; postgres: string };
    };
    expect(report.ok).toBe(true);
    expect(report.environment.database).toBe('embedded');
    expect(report.environment.postgres).toMatch(/^18\./);
    const after = readdirSync(tmpdir()).filter((f) => f.startsWith('reservebench-pg-'));
    expect(after.sort()).toEqual(before.sort());
  });
});

describe('a passing run on the embedded server with cases side by side', () => {
  it("keeps nothing: a control's exploration keeps the program that caught it only in a failing run", async () => {
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith('reservebench-pg-'));
    // Three controls' explorations run at once, two of them beside the run's own database.
    const controls = 'check-then-act,no-active-index,release-twice';
    const run = await runCli(['run', '--json', '--strategy', controls, '--reports', reports]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/kept/);
    const { cases } = JSON.parse(run.stdout) as {
      cases: { id: string; status: string; keptSchema?: string }[];
    };
    const explored = cases.filter((c) => c.id.startsWith('explore/'));
    expect(explored.map((c) => c.status)).toEqual(['pass', 'pass', 'pass']);
    expect(cases.filter((c) => c.keptSchema !== undefined).map((c) => c.id)).toEqual([]);
    const after = readdirSync(tmpdir()).filter((f) => f.startsWith('reservebench-pg-'));
    expect(after.sort()).toEqual(before.sort());
  });
});

describe("the embedded server's run database", () => {
  it('is reached through its Unix socket by every session of the run', async () => {
    const db = await openRunDatabase({});
    try {
      const client = new pg.Client({ connectionString: db.connectionString });
      await client.connect();
      const { rows } = await client
        .query<{ db: string; address: string | null }>(
          'SELECT current_database() AS db, inet_server_addr() AS address',
        )
        .finally(() => client.end());
      expect(rows).toEqual([{ db: db.name, address: null }]);
    } finally {
      await db.close({ keep: false });
    }
    // A server given by URL is reached as the URL says: no socket of the suite's.
    const given = await openRunDatabase({ databaseUrl: serverUrl });
    expect(new URL(given.connectionString).searchParams.has('host')).toBe(false);
    await given.close({ keep: false });
  });
});

describe('Ctrl-C', () => {
  it('stops the embedded server and removes its directory', async () => {
    const serverDirs = () => new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('reservebench-pg-')));
    const before = serverDirs();
    const child = spawn(
      process.execPath,
      cliArgv(['run', '--verbose', '--scenario', 'duplicate-key', '--repeat', '50', '--reports', reports]),
      {
        env: { ...process.env, DATABASE_URL: '' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Interrupt once the first case has finished (--verbose prints its line): the server is up and a run is
    // under way.
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('duplicate-key/')) resolve();
      });
    });
    const ours = [...serverDirs()].filter((d) => !before.has(d));
    expect(ours).toHaveLength(1);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect([...serverDirs()].filter((d) => !before.has(d))).toEqual([]);
    const { stdout } = await execFileAsync('ps', ['-eo', 'args']);
    expect(stdout).not.toContain(ours[0]);
  });
});

/** The databases on the server that carry the suite's marker: the ones a run made. */
async function markedDatabases(server: pg.Client): Promise<string[]> {
  const { rows } = await server.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE shobj_description(oid, 'pg_database') = $1",
    [OWNED_MARKER],
  );
  return rows.map((r) => r.datname);
}

describe('a failing run against --database-url', () => {
  it("keeps each failed or broken case's tables where its result says, beside lanes included", async () => {
    // Judged as if it held, the control's payment case fails; two of it run at once, so one runs on a
    // lane beside the run's own database.
    const spec = 'test/fixtures/specs/two-workers.spec';
    const paid = await runJson(serverUrl, [
      '--spec',
      spec,
      '--strategy',
      'payment-check-then-insert',
      '--repeat',
      '2',
    ]);
    // Its expiry never answers: the case is broken at its deadline.
    const broke = await runJson(serverUrl, [
      '--strategy',
      'test/fixtures/never-answers.ts',
      '--scenario',
      'expiry',
      '--timeout-ms',
      '1000',
    ]);
    expect([paid.run.code, broke.run.code]).toEqual([1, 1]);
    const failed = [...paid.report.payments, ...broke.report.cases];
    expect(failed.map((c) => c.status)).toEqual(['fail', 'fail', 'broken']);
    const kept = keptDatabasesOf(paid.run.stderr + broke.run.stderr);
    try {
      const named = failed.map((c) => ('keptSchema' in c ? c.keptSchema : undefined));
      expect(await caseSchemasIn(serverUrl, kept)).toEqual(named.sort());
    } finally {
      await dropKeptDatabases(serverUrl, kept);
    }
  });
});

describe('Ctrl-C on a run against --database-url', () => {
  it('drops the run database it created', async () => {
    const server = new pg.Client({ connectionString: serverUrl });
    await server.connect();
    const marked = () => markedDatabases(server);
    const before = new Set(await marked());
    const child = spawn(
      process.execPath,
      cliArgv(['run', '--verbose', '--scenario', 'duplicate-key', '--repeat', '50', '--reports', reports]),
      { env: { ...process.env, DATABASE_URL: serverUrl }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('duplicate-key/')) resolve();
      });
    });
    // The run's own database, and those of the lanes its cases run in side by side (run --jobs).
    const made = (await marked()).filter((d) => !before.has(d)).length;
    expect(made).toBeGreaterThanOrEqual(1);
    expect(made).toBeLessThanOrEqual(DEFAULT_JOBS);
    const linesBefore = stderr.split('\n').length;
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    // Cases cut short by the interruption are no result: no FAIL line, no "unexpected error", one line.
    const after = stderr
      .split('\n')
      .slice(linesBefore - 1)
      .join('\n');
    expect(after, stderr).not.toMatch(/^FAIL |unexpected error/m);
    expect(after, stderr).toMatch(/reservebench: interrupted/);
    expect(
      (await marked()).filter((d) => !before.has(d)),
      stderr,
    ).toEqual([]);
    await server.end();
  });
});

describe('Ctrl-C while a run against --database-url starts', () => {
  it('drops the run database even when it comes the moment the database appears', async () => {
    const server = new pg.Client({ connectionString: serverUrl });
    await server.connect();
    const marked = () => markedDatabases(server);
    const before = new Set(await marked());
    const child = spawn(
      process.execPath,
      cliArgv(['run', '--scenario', 'duplicate-key', '--reports', reports]),
      { env: { ...process.env, DATABASE_URL: serverUrl }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Seen on the server: the run database exists and is marked, while the run still connects and probes.
    let made: string[] = [];
    while (made.length === 0) made = (await marked()).filter((d) => !before.has(d));
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr, stderr).not.toMatch(/^duplicate-key\//m);
    expect((await marked()).filter((d) => !before.has(d))).toEqual([]);
    await server.end();
  });
});

describe('Ctrl-C while the run database is being created', () => {
  /** Every database a run may have made, marked or not. */
  async function runNamed(server: pg.Client): Promise<string[]> {
    const { rows } = await server.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'reservebench\\_%'",
    );
    return rows.map((r) => r.datname);
  }

  it('waits for the CREATE DATABASE in flight, then drops it', async () => {
    const server = new pg.Client({ connectionString: serverUrl });
    const holder = new pg.Client({ connectionString: serverUrl });
    await Promise.all([server.connect(), holder.connect()]);
    const before = new Set(await runNamed(server));
    // CREATE DATABASE takes a share lock on its template; a COMMENT on it holds a lock that conflicts,
    // until this transaction rolls back (nothing about template1 changes).
    await holder.query('BEGIN');
    await holder.query("COMMENT ON DATABASE template1 IS 'held by database.test.ts'");
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const child = spawn(
      process.execPath,
      cliArgv(['run', '--scenario', 'duplicate-key', '--reports', reports]),
      { env: { ...process.env, DATABASE_URL: serverUrl }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const interrupted = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('reservebench: interrupted')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Seen on the server: the run's CREATE DATABASE waits behind the held lock.
    const blockedCreate = `SELECT pid FROM pg_stat_activity
      WHERE query LIKE 'CREATE DATABASE%' AND $1::int = ANY (pg_blocking_pids(pid))`;
    let creating: number | undefined;
    while (creating === undefined)
      creating = (await server.query<{ pid: number }>(blockedCreate, [holderPid])).rows[0]?.pid;
    child.kill('SIGINT');
    await interrupted;
    await holder.query('ROLLBACK');
    expect(await exited, stderr).toBe(130);
    // Its backend ends only once the CREATE is done (the run gone, it finds no next command): what that
    // CREATE made is on the server by then.
    const alive = 'SELECT 1 FROM pg_stat_activity WHERE pid = $1';
    while ((await server.query(alive, [creating])).rowCount !== 0);
    await new Promise((r) => setTimeout(r, 2000));
    console.log('DBG', stderr, await runNamed(server), [...before]);
    expect((await runNamed(server)).filter((d) => !before.has(d))).toEqual([]);
    await Promise.all([server.end(), holder.end()]);
  });
});

describe('sslmode as libpq means it', () => {
  /** Builds the driver's client, as every connection does, and collects the warnings it emits meanwhile. */
  async function driverView(url: string): Promise<{ ssl: unknown; warnings: string[] }> {
    const warnings: string[] = [];
    const collect = (warning: Error) => warnings.push(warning.message);
    process.on('warning', collect);
    try {
      const client = new pg.Client({ connectionString: url });
      await new Promise((resolve) => setImmediate(resolve));
      const view = client as unknown as { connectionParameters: { ssl: unknown } };
      return { ssl: view.connectionParameters.ssl, warnings };
    } finally {
      process.off('warning', collect);
    }
  }

  it.each(['postgresql://h/db?sslmode=require', 'postgresql://h/db?sslmode=prefer'])(
    '%s: encrypted, the certificate not checked, no driver warning',
    async (url) => {
      expect(await driverView(url)).toEqual({ ssl: {}, warnings: expect.any(Array) });
      expect(await driverView(withLibpqSslModes(url))).toEqual({
        ssl: { rejectUnauthorized: false },
        warnings: [],
      });
    },
  );
});
