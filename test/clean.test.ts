/**
 * `reservebench clean` after a `kill -9` of the suite: it stops the orphaned embedded server and removes
 * its directory, and nothing else — not a directory without a state file, not a database without the
 * suite's marker.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { OWNED_MARKER } from '../harness/database/database.ts';
import { cliArgv } from './cli-child.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('reservebench clean', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'reservebench-clean-'));
  // The embedded server runs as the postgres user, which must reach its data directory in here.
  chmodSync(tmp, 0o755);
  const env = { TMPDIR: tmp };
  const notOurs = 'reservebench_20990101_000000_notours';
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${notOurs}`);
    await admin.end();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('removes exactly what a killed run left: its server and directory, not an unmarked directory or database', async () => {
    const stray = join(tmp, 'reservebench-pg-not-ours');
    mkdirSync(stray);
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${notOurs}`);
    await admin.end();
    // A state file naming the unmarked database, as if a killed run had left it: clean must refuse it.
    const states = join(tmp, 'reservebench-state');
    mkdirSync(states, { recursive: true });
    writeFileSync(
      join(states, 'run-999999999-1.json'),
      JSON.stringify({ pid: 999_999_999, startedAt: 'x', serverUrl, database: notOurs }),
    );

    const run = spawn(
      process.execPath,
      cliArgv(['run', '--scenario', 'contention', '--strategy', 'hot-row']),
      {
        env: { ...process.env, ...env, DATABASE_URL: '' },
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => run.on('exit', resolve));
    // Observed, not slept on: the run's own state file names a data directory with a live postmaster.
    let dataDir = '';
    let postmaster = 0;
    for (let i = 0; i < 6000 && !postmaster; i++) {
      for (const file of readdirSync(states).filter((f) => f.startsWith(`run-${run.pid}-`))) {
        dataDir =
          (JSON.parse(readFileSync(join(states, file), 'utf8')) as { dataDir?: string }).dataDir ?? '';
        const pidFile = join(dataDir, 'postmaster.pid');
        // initdb's bootstrap backend writes a negative pid there first: only the running server counts.
        const pid = dataDir && existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
        if (pid > 0 && alive(pid)) postmaster = pid;
      }
      if (!postmaster) await nextLook(10);
    }
    expect(postmaster).toBeGreaterThan(0);
    run.kill('SIGKILL');
    await exited;
    expect(alive(postmaster)).toBe(true);

    const dry = await runCli(['clean', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would remove ${dataDir}`);
    expect(alive(postmaster)).toBe(true);

    const cleaned = await runCli(['clean'], env);
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toContain(`removed ${dataDir}`);
    expect(cleaned.stdout).toMatch(
      new RegExp(`could not remove database ${notOurs}.*not created by reservebench`),
    );
    expect(alive(postmaster)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(stray)).toBe(true);
    const check = new pg.Client({ connectionString: serverUrl });
    await check.connect();
    const { rowCount } = await check.query('SELECT 1 FROM pg_database WHERE datname = $1', [notOurs]);
    await check.end();
    expect(rowCount).toBe(1);
  });

  it("removes the crash children's bundles a killed run left, named by its state file", async () => {
    const files = join(tmp, 'reservebench-child-killed');
    mkdirSync(files);
    writeFileSync(join(files, 'child-1.mjs'), '');
    const states = join(tmp, 'reservebench-state');
    mkdirSync(states, { recursive: true });
    writeFileSync(
      join(states, 'run-999999998-1.json'),
      JSON.stringify({ pid: 999_999_998, startedAt: 'x', filesDir: files }),
    );
    const cleaned = await runCli(['clean'], env);
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toContain(`removed ${files}`);
    expect(existsSync(files)).toBe(false);
  });
});

describe('reservebench clean, when the server a run database lives on is down', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'reservebench-clean-down-'));
  const env = { TMPDIR: tmp };
  const kept = 'reservebench_20990101_000000_serverdown';
  const stateFile = join(tmp, 'reservebench-state', 'run-999999998-1.json');
  const forwarder = createServer((client) => {
    const upstream = tcpConnect(Number(new URL(serverUrl).port), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  afterAll(async () => {
    forwarder.close();
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${kept}`);
    await admin.end();
    rmSync(tmp, { recursive: true, force: true });
  });

  const exists = async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [kept]);
    await admin.end();
    return rowCount === 1;
  };

  it('keeps the entry, in one line, and drops the database once the server is back', async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${kept}`);
    await admin.query(`COMMENT ON DATABASE ${kept} IS '${OWNED_MARKER}'`);
    await admin.end();
    // The shared server, reached through a port of the test's own: nothing listens there yet (down).
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as { port: number }).port;
    probe.close();
    await once(probe, 'close');
    const secret = new URL(serverUrl).password;
    const down = new URL(serverUrl);
    down.port = String(port);
    down.password = '';
    down.search = `?password=${encodeURIComponent(secret)}`;
    mkdirSync(join(tmp, 'reservebench-state'), { recursive: true });
    writeFileSync(
      stateFile,
      JSON.stringify({
        pid: 999_999_998,
        startedAt: 'x',
        serverUrl: down.toString(),
        database: kept,
        kept: true,
      }),
    );

    const whileDown = await runCli(['clean'], env);
    expect(whileDown.code).toBe(0);
    expect(whileDown.stdout.trim().split('\n')).toHaveLength(1);
    expect(whileDown.stdout).toMatch(
      new RegExp(
        `^kept database ${kept} on \\S+\\?password=\\*\\*\\* .*: cannot connect to its server \\(.*ECONNREFUSED.*\\)`,
      ),
    );
    expect(whileDown.stdout).toContain(stateFile);
    expect(whileDown.stdout).not.toContain(secret);
    expect(existsSync(stateFile)).toBe(true);
    expect(await exists()).toBe(true);

    forwarder.listen(port, '127.0.0.1');
    await once(forwarder, 'listening');
    const whenBack = await runCli(['clean'], env);
    expect(whenBack.code).toBe(0);
    expect(whenBack.stdout).toMatch(new RegExp(`^removed database ${kept} on `));
    expect(existsSync(stateFile)).toBe(false);
    expect(await exists()).toBe(false);
  });

  it("removes a run database's entry with the embedded server it was made on (a killed yardstick)", async () => {
    const states = join(tmp, 'reservebench-state');
    mkdirSync(states, { recursive: true });
    const dataDir = join(tmp, 'reservebench-pg-yardstick');
    mkdirSync(dataDir);
    // The killed server's port: nothing listens there any more.
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as { port: number }).port;
    probe.close();
    await once(probe, 'close');
    const adminUrl = `postgresql://postgres:yardstick-secret@127.0.0.1:${port}/postgres`;
    const database = 'reservebench_20990101_000000_yardst';
    const entry = (n: number, state: object) =>
      writeFileSync(
        join(states, `run-999999997-${n}.json`),
        JSON.stringify({ pid: 999_999_997, startedAt: 'x', ...state }),
      );
    entry(1, { dataDir, serverUrl: adminUrl });
    // The yardstick's run database, made on that server through its socket, by URL.
    entry(2, { serverUrl: `${adminUrl}?host=${encodeURIComponent(dataDir)}`, database });

    const cleaned = await runCli(['clean'], env);
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toContain(`removed ${dataDir}`);
    expect(cleaned.stdout).toMatch(
      new RegExp(`^removed database ${database} on .*\\(with its server's data directory\\)$`, 'm'),
    );
    expect(cleaned.stdout).not.toContain('yardstick-secret');
    expect(readdirSync(states).filter((f) => f.startsWith('run-999999997-'))).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });
});
