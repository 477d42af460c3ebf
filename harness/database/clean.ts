/**
 * `reservebench clean`: removes what killed runs left behind, and data a run kept, exactly as their state
 * files name it (run-state.ts) — an embedded server's process and data directory, a marked run database on
 * another server — and nothing else: an unmarked directory or database is never touched.
 */
import { rmSync } from 'node:fs';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { oneLine } from '../errors.ts';
import { dropOwnedDatabase } from './database.ts';
import { redact } from './redact.ts';
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
  if (state.filesDir) what.push(`${state.filesDir} (${megabytes(state.filesDir)})`);
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

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Drops the run database, or says why its server cannot be connected to. A server that does not answer
 * now may well come back with the database in it, so that is no reason to forget the entry.
 */
async function dropDatabase(
  serverUrl: string,
  database: string,
): Promise<{ unreachable: string } | undefined> {
  const client = new pg.Client({
    connectionString: serverUrl,
    application_name: 'reservebench-clean',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error: unknown) {
    await client.end().catch(() => undefined);
    return { unreachable: oneLine(error) };
  }
  try {
    await dropOwnedDatabase(client, database);
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The server a URL reaches, as its host, port and password: the entry of an embedded server's data
 * directory and the entry of a run database made on that server by URL (the yardstick's) name the same.
 */
function serverKey(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const { hostname, port, password, searchParams } = new URL(url);
    return JSON.stringify([hostname, port, password || searchParams.get('password')]);
  } catch {
    return undefined;
  }
}

/**
 * What cleaning one entry did, as its line; the entry's file goes only once nothing it names is left. A
 * database on an embedded server whose data directory this clean removed went with the directory.
 */
async function cleanEntry(file: StateFile, line: string, removedServers: Set<string>): Promise<string> {
  const { state } = file;
  const server = serverKey(state.serverUrl);
  try {
    if (state.dataDir) {
      await stopServer(state.dataDir);
      rmSync(state.dataDir, { recursive: true, force: true });
      if (server) removedServers.add(server);
    }
    if (state.filesDir) rmSync(state.filesDir, { recursive: true, force: true });
    if (!state.dataDir && server && removedServers.has(server)) {
      removeRunState(file.path);
      return `removed ${line} (with its server's data directory)`;
    }
    if (state.serverUrl && state.database) {
      const failed = await dropDatabase(state.serverUrl, state.database);
      if (failed) {
        return `kept ${line}: cannot connect to its server (${failed.unreachable}); clean again once it is back, or delete ${file.path} if it is gone for good`;
      }
    }
    removeRunState(file.path);
    return `removed ${line}`;
  } catch (error: unknown) {
    return `could not remove ${line}: ${oneLine(error)}`;
  }
}

/** Lines saying what was (or, with dryRun, would be) removed. */
export async function clean(options: { dryRun: boolean }): Promise<string[]> {
  // Data directories first: a database entry on one of their servers then goes with it.
  const found = leftovers().sort((a, b) => Number(!a.state.dataDir) - Number(!b.state.dataDir));
  if (found.length === 0) return ['nothing to clean'];
  const lines: string[] = [];
  const removedServers = new Set<string>();
  for (const file of found) {
    const line = describe(file);
    lines.push(options.dryRun ? `would remove ${line}` : await cleanEntry(file, line, removedServers));
  }
  return lines;
}
