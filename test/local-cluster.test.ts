/**
 * Stopping a local cluster (scripts/local-cluster.ts) ends within its deadline: a member that ignores its
 * stop signal is named in one line and killed, and the cluster's folder is removed all the same. The
 * stubborn members are node processes that say, by a file, once they ignore the signal.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../harness/database/poll-until.ts';
import { processAlive } from '../harness/database/run-state.ts';
import { spawnDetached, stopCluster } from '../scripts/local-cluster.ts';

const dir = mkdtempSync(join(tmpdir(), 'reservebench-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A process that ignores `signal`, started once it has written `ready`. */
async function stubborn(signal: NodeJS.Signals, ready: string) {
  const code = `process.on('${signal}', () => {}); require('node:fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000);`;
  const child = spawnDetached(process.execPath, ['-e', code], { asServerUser: false });
  await waitUntil(`a process ignoring ${signal}`, 20_000, async () => existsSync(ready));
  return child;
}

describe('stopCluster', () => {
  it('kills a member still running at its deadline, says so in a line, and removes the folder', async () => {
    const cluster = join(dir, 'cluster');
    const dataDir = join(cluster, 'pg1');
    mkdirSync(dataDir, { recursive: true });
    const manager = await stubborn('SIGTERM', join(dir, 'manager-ready'));
    const postmaster = await stubborn('SIGQUIT', join(dir, 'postmaster-ready'));
    writeFileSync(join(dataDir, 'postmaster.pid'), `${postmaster.pid}\n${dataDir}\n`);
    const lines: string[] = [];
    await stopCluster([manager], [dataDir], cluster, { timeoutMs: 300, say: (l) => lines.push(l) });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^stopping the cluster: .* \(pid \d+\) still running 0\.3 s after it was told to stop; killing it$/,
    );
    expect(lines[1]).toContain(`the postmaster of ${dataDir}`);
    expect([manager.pid, postmaster.pid].filter((pid) => pid !== undefined && processAlive(pid))).toEqual([]);
    expect(existsSync(cluster)).toBe(false);
  }, 30_000);
});
