/**
 * `reservebench sql`: the way into what a run kept that needs nothing but the suite — a kept embedded
 * server is started again on its directory, logged in to with the run's own password, and stopped after.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postmasterPid } from '../harness/database/run-state.ts';
import { cliArgv } from './cli-child.ts';
import { runCli } from './run-cli.ts';

// The runs below share a temp directory of their own: the kept run's state file is found there.
const ownTmp = mkdtempSync(join(tmpdir(), 'reservebench-sql-'));
// As root the server runs as `postgres`, which must reach its data directory in here.
chmodSync(ownTmp, 0o755);
afterAll(() => rmSync(ownTmp, { recursive: true, force: true }));

const cli = (args: string[], input?: string) => runCli(args, { TMPDIR: ownTmp }, input);

/** `sql KEPT` reading statements from a stdin left open, sent SIGTERM once it says it is connected. */
async function terminatedWhileConnected(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, cliArgv(['sql', dataDir]), {
    env: { ...process.env, DATABASE_URL: '', TMPDIR: ownTmp },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('connected to ')) resolve();
    });
    child.on('close', () => resolve());
  });
  child.kill('SIGTERM');
  return { code: await closed, stderr };
}

describe('reservebench sql', () => {
  it('opens a kept embedded run with no psql and no password typed, and leaves the server stopped', async () => {
    const reports = join(ownTmp, 'reports');
    const run = await cli([
      'run',
      '--strategy',
      'hot-row',
      '--scenario',
      'duplicate-key',
      '--keep',
      '--reports',
      reports,
    ]);
    expect(run.code).toBe(0);
    const dataDir = /npx reservebench sql (\S+)/.exec(run.stderr + run.stdout)?.[1] ?? '';
    expect(dataDir).toMatch(/reservebench-pg-/);
    expect(postmasterPid(dataDir)).toBeUndefined();

    const held = await cli([
      'sql',
      dataDir,
      '--command',
      "SELECT count(*) FILTER (WHERE status = 'HELD') AS held, count(*) AS keys FROM c001_duplicate_key_hot_row.reservation",
    ]);
    expect(held.stderr).toMatch(/connected to reservebench_/);
    expect(held.stdout).toMatch(/held\s*│\s*keys|held.*keys/);
    // The case's one hold, and the 39 the probe sold after the final read (it sells what remains).
    expect(held.stdout.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ')).toMatch(/\b40\s+40\b/);
    expect(held.stdout).toContain('(1 row)');
    expect(held.code).toBe(0);
    expect(postmasterPid(dataDir)).toBeUndefined();

    // Statements on stdin (not a terminal): each result printed, an error named, exit 1.
    const piped = await cli(['sql', dataDir], 'SELECT 41 + 1 AS answer; SELECT * FROM no_such_table;');
    expect(piped.stderr).toMatch(/^ERROR: .*no_such_table/m);
    expect(piped.stdout).not.toContain('ERROR');
    expect(piped.code).toBe(1);
    const first = await cli(['sql', dataDir], 'SELECT 41 + 1 AS answer;');
    expect(first.stdout).toContain('42');
    expect(first.code).toBe(0);

    // A signal while a session is open stops the server it started and says the run stays kept.
    const signalled = await terminatedWhileConnected(dataDir);
    expect(signalled.stderr).toMatch(/interrupted; stopping the kept server; the kept run stays as it is/);
    expect(signalled.stderr).not.toMatch(/dropping/);
    // The session the stopping server ends, idle at the prompt, is no crash: the hook's exit, 128 + 15.
    expect(signalled.stderr).not.toMatch(/Unhandled|\n\s+at /);
    expect(signalled.code).toBe(143);
    expect(postmasterPid(dataDir)).toBeUndefined();
    expect((await cli(['sql', dataDir, '--command', 'SELECT 1 AS one'])).code).toBe(0);

    const unknown = await cli(['sql', '/nowhere']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^reservebench: no kept run is named "\/nowhere"; kept: .*reservebench-pg-/,
    );

    const clean = await cli(['clean']);
    expect(clean.stdout).toContain(`removed ${dataDir}`);
    const none = await cli(['sql']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no run kept its data/);
  });
});
