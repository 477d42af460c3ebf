/**
 * Ctrl-C in a terminal sends SIGINT to the whole foreground process group. The embedded PostgreSQL must
 * not be in that group: only `serve` gets the signal, finishes the admitted request it holds, then stops
 * the server itself — no 500 from a server that shut down under the request, no postmaster left behind.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as nextLook } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { postReserve } from '../harness/contracts/reservation/http/loopback-client.ts';
import { postmasterPid, processAlive } from '../harness/database/run-state.ts';
import { cliArgv } from './cli-child.ts';

/** The process group of a live process, from /proc/<pid>/stat (the field after state and ppid). */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

describe('Ctrl-C on serve (SIGINT to its whole process group)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'reservebench-serve-int-'));
  // The embedded server runs as the postgres user, which must reach its data directory in here.
  chmodSync(tmp, 0o755);
  const cleanup: (() => void)[] = [];
  afterAll(() => {
    for (const step of cleanup) {
      try {
        step();
      } catch {
        // already gone
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('drains the admitted request, stops PostgreSQL itself and exits 0', async () => {
    // Its own process group, as a terminal's foreground job is.
    const child = spawn(
      process.execPath,
      cliArgv(['serve', '--port', '0', '--strategy', 'hot-row', '--work-ms', '1000']),
      {
        env: { ...process.env, DATABASE_URL: '', TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    const group = child.pid ?? 0;
    cleanup.push(() => process.kill(-group, 'SIGKILL'));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (found) resolve(found);
      });
      child.once('close', () => reject(new Error(`serve exited: ${lines.join('\n')}\n${stderr}`)));
    });

    // The run's state file names the data directory; its postmaster.pid the server process.
    const states = join(tmp, 'reservebench-state');
    const stateFile = readdirSync(states).find((f) => f.startsWith(`run-${group}-`)) ?? '';
    const { dataDir } = JSON.parse(readFileSync(join(states, stateFile), 'utf8')) as { dataDir: string };
    const postmaster = postmasterPid(dataDir) ?? 0;
    expect(postmaster).toBeGreaterThan(0);
    cleanup.push(() => process.kill(postmaster, 'SIGQUIT'));
    const postmasterGroup = processGroup(postmaster);

    const pending = postReserve(url, {
      requestKey: 'ctrl-c',
      user: 'u-ctrl-c',
      sku: 'sku-lab-01',
      ttlMs: 60_000,
    });
    // Observed, not timed: the request is inside the gate, held by --work-ms.
    for (let n = 0; ; n++) {
      const counters = (await (await fetch(`${url}/admission`)).json()) as { inFlight: number };
      if (counters.inFlight === 1) break;
      if (n > 1000) throw new Error('the request never got admitted');
      await nextLook(5);
    }
    process.kill(-group, 'SIGINT');

    expect(await pending, stderr).toMatchObject({ code: 201, fields: { outcome: 'HELD' } });
    expect(await exited, stderr).toBe(0);
    expect(lines.join('\n')).toMatch(/SIGINT: draining admitted requests\nstopped/);
    expect(processAlive(postmaster)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    expect(readdirSync(states)).toEqual([]);
    // The reason it works: the server was never in the group the terminal signals.
    expect(postmasterGroup).not.toBe(group);
  });
});
