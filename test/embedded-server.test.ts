/**
 * The embedded server's postmaster is the harness's own child in a session of its own (so a terminal's
 * Ctrl-C never reaches it): crash-and-restart, a signal to the suite and an uncaught error on the way out
 * each still end with the server stopped by the suite.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { socketDirectoryFor, startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { postmasterPid, processAlive } from '../harness/database/run-state.ts';
import { serverUser } from '../harness/database/server-user.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** The session of a live process, from /proc/<pid>/stat (after state, ppid and process group). */
function session(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

/** The address the server answered on: null through a Unix-domain socket. */
async function serverAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ a: string | null }>('SELECT inet_server_addr() AS a')).rows[0]?.a ?? null;
  } finally {
    await client.end();
  }
}

async function answers(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>('SELECT 1 AS n')).rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/** Until `pid` is gone (observed), at most about 10 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 2000 && processAlive(pid); i++) await nextLook(5);
  return !processAlive(pid);
}

describe('the embedded server', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'reservebench-embedded-'));
  // The embedded server runs as the postgres user, which must reach its data directory in here.
  chmodSync(tmp, 0o755);
  const leftovers: number[] = [];
  afterAll(() => {
    for (const pid of leftovers.filter(processAlive)) process.kill(pid, 'SIGQUIT');
    rmSync(tmp, { recursive: true, force: true });
  });

  it('runs in a session of its own, crashes and restarts there, and stops', async () => {
    const server = await startEmbeddedServer();
    const first = postmasterPid(server.dataDir) ?? 0;
    leftovers.push(first);
    expect(first).toBeGreaterThan(0);
    expect(session(first)).toBe(first);
    expect(await answers(server.adminUrl)).toBe(1);
    // The socket is in the data directory, which only the server's user can enter.
    expect(server.socketUrl).toContain(`?host=${encodeURIComponent(server.dataDir)}`);
    expect(await serverAddress(server.socketUrl ?? '')).toBeNull();
    expect(await serverAddress(server.adminUrl)).toBe('127.0.0.1');
    expect(statSync(server.dataDir).mode & 0o077).toBe(0);

    await server.crashAndRestart();
    expect(processAlive(first)).toBe(false);
    const second = postmasterPid(server.dataDir) ?? 0;
    leftovers.push(second);
    expect(second).toBeGreaterThan(0);
    expect(second).not.toBe(first);
    expect(session(second)).toBe(second);
    expect(await answers(server.adminUrl)).toBe(1);
    // The socket of the crashed postmaster (its lock file left behind) is taken over by the new one.
    expect(await serverAddress(server.socketUrl ?? '')).toBeNull();

    await server.stop({ keepData: false });
    expect(processAlive(second)).toBe(false);
    expect(existsSync(server.dataDir)).toBe(false);
  });

  it('opens no socket where the path would be too long for one, or would need quoting', () => {
    expect(socketDirectoryFor('/tmp/reservebench-pg-abc123')).toBe('/tmp/reservebench-pg-abc123');
    expect(socketDirectoryFor(`/tmp/${'d'.repeat(100)}/reservebench-pg-abc123`)).toBeUndefined();
    expect(socketDirectoryFor('/tmp/a,b/reservebench-pg-abc123')).toBeUndefined();
    expect(socketDirectoryFor('/tmp/a b/reservebench-pg-abc123')).toBeUndefined();
  });

  /** A process that starts a server, prints its directory and postmaster, then does `then`. */
  function suite(then: 'wait' | 'throw') {
    const script = `
      const { startEmbeddedServer } = await import(${JSON.stringify(`${ROOT}harness/database/embedded-server.ts`)});
      const { postmasterPid } = await import(${JSON.stringify(`${ROOT}harness/database/run-state.ts`)});
      const server = await startEmbeddedServer();
      process.stdout.write(server.dataDir + ' ' + postmasterPid(server.dataDir) + '\\n');
      ${then === 'throw' ? "setImmediate(() => { throw new Error('a strategy blew up'); });" : ''}
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const started = new Promise<{ dataDir: string; pid: number }>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', (line) => {
        const [dataDir = '', pid = '0'] = line.split(' ');
        leftovers.push(Number(pid));
        resolve({ dataDir, pid: Number(pid) });
      });
      child.once('close', () => reject(new Error(`the suite exited first: ${stderr}`)));
    });
    return { child, exited, started, stderr: () => stderr };
  }

  it('is stopped (fast shutdown, awaited) when the suite alone gets SIGTERM', async () => {
    const run = suite('wait');
    const { dataDir, pid } = await run.started;
    expect(processAlive(pid)).toBe(true);
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('is stopped when the suite dies on an uncaught error', async () => {
    const run = suite('throw');
    const { dataDir, pid } = await run.started;
    expect(await run.exited).not.toBe(0);
    expect(run.stderr()).toContain('a strategy blew up');
    expect(await gone(pid)).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('stores its password as a SCRAM secret of one round, which a login accepts', async () => {
    // 4096 rounds were a large share of a connection's cost (scram-secret.ts); a login that works is the
    // proof that the secret made here is the one PostgreSQL derives from the password.
    const client = new pg.Client({ connectionString: inject('serverUrl') });
    await client.connect();
    try {
      const { rows } = await client.query<{ secret: string }>(
        "SELECT rolpassword AS secret FROM pg_authid WHERE rolname = 'postgres'",
      );
      expect(rows[0]?.secret).toMatch(/^SCRAM-SHA-256\$1:/);
    } finally {
      await client.end();
    }
  });

  it('looks its user up once: a run starts its servers again and again, each `id` a fork of the run', () => {
    expect(serverUser()).toBe(serverUser());
  });
});
