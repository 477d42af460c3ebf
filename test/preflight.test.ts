/**
 * A server (or role) that cannot take the connections the run needs is refused before any case, with one
 * line saying what to set — not 53300 errors halfway through the run. `bench` and `serve` check the same.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runBounded } from './bounded-cli.ts';
import { cliArgv } from './cli-child.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const ROLE = 'reservebench_limited_role';

/** A fresh login role of the suite's own with CONNECTION LIMIT 20; its URL. */
async function limitedRoleUrl(admin: pg.Client): Promise<string> {
  await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
  await admin.query(`CREATE ROLE ${ROLE} LOGIN CREATEDB CONNECTION LIMIT 20 PASSWORD 'limited-pw'`);
  const url = new URL(serverUrl);
  url.username = ROLE;
  url.password = 'limited-pw';
  return url.toString();
}

/** The suite's run databases on the test server (each refused run must have dropped its own). */
async function runDatabases(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'reservebench_%'",
  );
  return rows[0]?.n ?? 0;
}

describe('the connection preflight', () => {
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
    await admin.end();
  });

  it('refuses a run whose role may open fewer connections than contention needs (exit 2, one line)', async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
    await admin.query(`CREATE ROLE ${ROLE} LOGIN CREATEDB CONNECTION LIMIT 20 PASSWORD 'limited-pw'`);
    const before = await admin.query(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'reservebench_%'",
    );
    const url = new URL(serverUrl);
    url.username = ROLE;
    url.password = 'limited-pw';
    const run = await runCli(['run', '--scenario', 'contention', '--strategy', 'hot-row'], {
      DATABASE_URL: url.toString(),
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /role reservebench_limited_role may open \d+ more connections \(CONNECTION LIMIT 20\) but the run needs 160/,
    );
    expect(run.stderr).not.toContain('limited-pw');
    // Its run database was dropped on the way out.
    const after = await admin.query(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'reservebench_%'",
    );
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
    // With few enough clients the same role may run.
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
    const small = await runCli(
      ['run', '--scenario', 'contention', '--strategy', 'hot-row', '--clients', '8', '--reports', reports],
      { DATABASE_URL: url.toString() },
    );
    rmSync(reports, { recursive: true, force: true });
    expect(small.code).toBe(0);
    await admin.end();
  });

  it('refuses a bench whose biggest client count does not fit the role (exit 2, one line)', async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const url = await limitedRoleUrl(admin);
    const before = await runDatabases(admin);
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
    const quick = ['--strategy', 'hot-row', '--trials', '1', '--warmup-ms', '0', '--duration-ms', '100'];
    const bench = await runCli(['bench', ...quick, '--clients', '4,16', '--reports', reports], {
      DATABASE_URL: url,
    });
    expect(bench.code, bench.stderr).toBe(2);
    expect(bench.stderr.trim().split('\n')).toHaveLength(1);
    expect(bench.stderr).toMatch(
      /role reservebench_limited_role may open \d+ more connections \(CONNECTION LIMIT 20\) but the run needs 26: raise it to at least \d+, or give fewer --clients$/m,
    );
    expect(bench.stderr).not.toContain('limited-pw');
    expect(await runDatabases(admin)).toBe(before);
    // The largest count decides: 4 clients fit.
    const small = await runCli(['bench', ...quick, '--clients', '4', '--reports', reports], {
      DATABASE_URL: url,
    });
    rmSync(reports, { recursive: true, force: true });
    expect(small.code, small.stderr).toBe(0);
    expect(await runDatabases(admin)).toBe(before);
    await admin.end();
  });

  it('refuses a serve whose two pools do not fit the role (exit 2, one line), and serves when they do', async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const url = await limitedRoleUrl(admin);
    const before = await runDatabases(admin);
    const serve = ['serve', '--strategy', 'hot-row', '--port', '0'];
    const env = { DATABASE_URL: url };
    // 8:8 → two pools of 8 (and the expiry job's one), plus the harness's own 10. A deadline: a serve let
    // through would never end.
    const refused = await runBounded([...serve, '--admission', '8:8'], { timeoutMs: 30_000, env });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    const needs =
      /role reservebench_limited_role may open \d+ more connections \(CONNECTION LIMIT 20\) but the run needs (\d+): raise it to at least \d+, or give a lower --admission LIMIT$/m.exec(
        refused.stderr,
      );
    expect(needs, refused.stderr).not.toBeNull();
    expect(Number(needs?.[1])).toBeGreaterThanOrEqual(26);
    expect(refused.stdout).not.toMatch(/listening/);
    expect(await runDatabases(admin)).toBe(before);
    // 2:8 → at most 15 connections: it serves, and stops cleanly on SIGTERM.
    const child = spawn(process.execPath, cliArgv([...serve, '--admission', '2:8']), {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      const listening = await new Promise<string | undefined>((resolve) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const url = /^listening on (http:\/\/\S+)/.exec(line)?.[1];
          if (url) resolve(url);
        });
        child.once('close', () => resolve(undefined));
      });
      expect(listening, stderr).toBeDefined();
      // An answer first: serve takes SIGTERM over only just after it prints that line.
      expect((await fetch(`${listening}/admission`)).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited, stderr).toBe(0);
    } finally {
      clearTimeout(deadline);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect(await runDatabases(admin)).toBe(before);
    await admin.end();
  });
});
