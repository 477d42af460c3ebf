/**
 * `reservebench clean`: removes what killed runs left behind, and data a run kept, exactly as their state
 * files name it (run-state.ts) — an embedded server's process and data directory, a marked run database on
 * another server — and nothing else: an unmarked directory or database is never touched.
 */
import { rmSync } from 'node:fs';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { oneLine } from '../errors.ts';
import { dropOwnedDatabase, redact } from './database.ts';
import {
  megabytes,
  postmasterPid,
  processAlive,
  readRunStates,
  removeRunState,
  type StateFile,
} from './run-state.ts';

/** Runs that are over: killed (their process is gone) or ended keeping their data. */
export function leftovers(): StateFile[] {
  return readRunStates().filter(({ state }) => state.kept || !processAlive(state.pid));
}

function describe({ state }: StateFile): string {
  const what: string[] = [];
  if (state.dataDir) {
    const pid = postmasterPid(state.dataDir);
    what.push(`${state.dataDir} (${megabytes(state.dataDir)}${pid ? `, server running as pid ${pid}` : ''})`);
  }
  if (state.database && state.serverUrl)
    what.push(`database ${state.database} on ${redact(state.serverUrl)}`);
  const why = state.kept ? 'kept by a run' : `left by run ${state.pid}, which is gone`;
  return `${what.join(' and ')} — ${why} (started ${state.startedAt})`;
}

async function stopServer(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (!pid) return;
  process.kill(pid, 'SIGQUIT');
  // Wait for the process itself to go before its directory is removed.
  for (let i = 0; i < 2000 && processAlive(pid); i++) await nextLook(5);
}

async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, application_name: 'reservebench-clean' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await dropOwnedDatabase(client, database);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function isGoneLocalServer(error: unknown, serverUrl: string | undefined): boolean {
  if (!serverUrl || (error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') return false;
  const host = new URL(serverUrl).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

/** Lines saying what was (or, with dryRun, would be) removed. */
export async function clean(options: { dryRun: boolean }): Promise<string[]> {
  const found = leftovers();
  if (found.length === 0) return ['nothing to clean'];
  const lines: string[] = [];
  for (const file of found) {
    const line = describe(file);
    if (options.dryRun) {
      lines.push(`would remove ${line}`);
      continue;
    }
    const { state } = file;
    try {
      if (state.dataDir) {
        await stopServer(state.dataDir);
        rmSync(state.dataDir, { recursive: true, force: true });
      }
      if (state.serverUrl && state.database) await dropDatabase(state.serverUrl, state.database);
      removeRunState(file.path);
      lines.push(`removed ${line}`);
    } catch (error: unknown) {
      // A server on this machine that no longer listens took its databases with it (a test server).
      if (isGoneLocalServer(error, state.serverUrl)) {
        removeRunState(file.path);
        lines.push(`forgot ${line}: its server on this machine is gone`);
        continue;
      }
      lines.push(`could not remove ${line}: ${oneLine(error)}`);
    }
  }
  return lines;
}
