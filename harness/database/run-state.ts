/**
 * What a run leaves if it is killed (kill -9, an uncaught error): one state file per run in
 * `<tmpdir>/reservebench-state/`, written when the run's server or database comes up and removed when the
 * run ends cleanly. A file is private (0600): for a run against another server it holds the URL the run
 * database is dropped through. `reservebench clean` finds files whose run is gone and removes exactly what
 * they name: the embedded server's process and data directory, the marked run database. Kept data (a
 * failed run's, or `--keep`) stays listed until cleaned.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export interface RunState {
  /** The suite's process; the state is orphaned once it is gone. */
  pid: number;
  startedAt: string;
  /** The embedded server's data directory (its postmaster.pid names the server process). */
  dataDir?: string;
  /** A directory of the run's own files (its crash children's bundles), removed with the run. */
  filesDir?: string;
  /** A run against another server: the URL of that server (with its password) and the run database. */
  serverUrl?: string;
  database?: string;
  /** The run ended but kept its data for inspection. */
  kept?: boolean;
}

export function stateFolder(): string {
  return join(tmpdir(), 'reservebench-state');
}

export interface StateFile {
  path: string;
  state: RunState;
}

/** Records (or rewrites) the run's state; returns the file, to update or remove later. */
export function writeRunState(state: RunState, path?: string): string {
  const folder = stateFolder();
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = path ?? join(folder, `run-${state.pid}-${Date.now()}.json`);
  writeFileSync(file, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  return file;
}

export function removeRunState(path: string): void {
  rmSync(path, { force: true });
}

export function readRunStates(): StateFile[] {
  const folder = stateFolder();
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((f) => /^run-\d+-\d+\.json$/.test(f))
    .flatMap((f) => {
      const path = join(folder, f);
      try {
        return [{ path, state: JSON.parse(readFileSync(path, 'utf8')) as RunState }];
      } catch {
        return [];
      }
    });
}

/** The prefix of the folder a process keeps its crash children's bundles in (harness/crash/child-bundle.ts). */
export const CHILD_FILES_PREFIX = 'reservebench-child-';

/**
 * Removes the files folders of processes that are gone without removing them (killed, so their 'exit'
 * never ran), with their state files; returns the folders removed. Only a state file that names nothing
 * but such a folder, whose process is gone, is touched: a live run's folder stays, and a killed run's
 * server or database is left for `reservebench clean`, which says what it does.
 */
export function removeOrphanedFiles(): string[] {
  return readRunStates().flatMap(({ path, state }) => {
    const { filesDir, pid, dataDir, serverUrl, database, kept } = state;
    const onlyFiles = filesDir && !dataDir && !serverUrl && !database && !kept;
    if (!onlyFiles || !basename(filesDir).startsWith(CHILD_FILES_PREFIX) || processAlive(pid)) return [];
    rmSync(filesDir, { recursive: true, force: true });
    removeRunState(path);
    return [filesDir];
  });
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster's pid from its data directory, when a server still runs there. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes under a directory (what removing it frees). */
function sizeOf(path: string): number {
  try {
    const info = statSync(path);
    if (!info.isDirectory()) return info.size;
    return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
  } catch {
    return 0;
  }
}

export function megabytes(path: string): string {
  return `${(sizeOf(path) / 1_048_576).toFixed(0)} MB`;
}
