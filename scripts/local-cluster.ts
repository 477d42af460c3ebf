/**
 * What every real cluster this repo starts on one machine for trying a manager (scripts/patroni-cluster.ts,
 * scripts/pg-auto-failover-cluster.ts) shares: a private temporary folder the server user owns, its
 * processes started detached (the servers as that user), a wait on the manager's own word that the cluster
 * is ready, a stop that leaves no process and no folder behind, and the command-line form that prints how
 * to run the suite against it and keeps it up until Ctrl-C.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import exitHook from 'async-exit-hook';
import { pollUntil } from '../harness/database/poll-until.ts';
import { postmasterPid, processAlive } from '../harness/database/run-state.ts';
import { ensureServerUser, serverUser } from '../harness/database/server-user.ts';

/** How often a manager is asked whether the cluster is ready (waitUntil): no ordering depends on it. */
export const MANAGER_LOOK_MS = 250;
/** How often a stopping process is looked at again. */
const STOP_LOOK_MS = 50;

/** A cluster on this machine: its folder (every member's data), and how to stop it and remove the folder. */
export interface LocalCluster {
  dir: string;
  stop(): Promise<void>;
}

/** Why a cluster cannot be started here (which of `binaries` is missing, and `install`), or undefined. */
export function missingBinaries(binaries: Record<string, string>, install: string): string | undefined {
  const missing = Object.entries(binaries).filter(([, path]) => !existsSync(path));
  if (missing.length === 0) return undefined;
  return `needs ${missing.map(([name, path]) => `${name} (${path})`).join(', ')}: ${install}`;
}

/** A new folder under the temporary directory, owned by the server user (`postgres` as root). */
export function clusterFolder(prefix: string): string {
  ensureServerUser();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  ownedByServerUser(dir);
  return dir;
}

/** As root, hands `path` to the server user, who runs the servers; otherwise it is already theirs. */
export function ownedByServerUser(path: string): void {
  const { uid, gid } = serverUser();
  if (uid !== undefined && gid !== undefined) chownSync(path, uid, gid);
}

/** A process of the cluster, in a process group of its own (Ctrl-C reaches it through stop, not directly). */
export function spawnDetached(
  command: string,
  args: string[],
  options: { asServerUser: boolean; env?: NodeJS.ProcessEnv },
): ChildProcess {
  const child = spawn(command, args, {
    ...(options.asServerUser ? serverUser() : {}),
    stdio: 'ignore',
    detached: true,
    env: { ...process.env, LC_ALL: 'C', ...options.env },
  });
  child.on('error', () => undefined);
  return child;
}

/** How long a member may take to stop once told before it is killed; its shutdown checkpoint fits well inside. */
export const STOP_TIMEOUT_MS = 60_000;
/** How long a killed process may take to be gone. */
const KILLED_GONE_MS = 5_000;

export interface StopOptions {
  timeoutMs?: number;
  /** Told, one line each, what did not stop in time. */
  say?: (line: string) => void;
}

/**
 * Stops the children last started first (each manager stops its PostgreSQL on SIGTERM), then any
 * postmaster of `dataDirs` a manager left starting, each seen gone, then removes `dir`. One still running
 * `timeoutMs` after it was told to stop is named in a line and killed with its process group; one that
 * outlives that too fails the stop, naming it and the folder left behind.
 */
export async function stopCluster(
  children: ChildProcess[],
  dataDirs: readonly string[],
  dir: string,
  options: StopOptions = {},
): Promise<void> {
  const stop = { timeoutMs: options.timeoutMs ?? STOP_TIMEOUT_MS, say: options.say ?? sayOnStderr };
  const left: string[] = [];
  for (const child of [...children].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    const what = `${child.spawnfile} (pid ${child.pid})`;
    child.kill('SIGTERM');
    if (!(await stopsWithin(what, -child.pid, exited, stop))) left.push(what);
  }
  for (const dataDir of dataDirs) {
    const pid = postmasterPid(dataDir);
    if (pid === undefined) continue;
    process.kill(pid, 'SIGQUIT');
    const what = `the postmaster of ${dataDir} (pid ${pid})`;
    if (!(await stopsWithin(what, pid, () => !processAlive(pid), stop))) left.push(what);
  }
  if (left.length > 0)
    throw new Error(`the cluster did not stop: ${left.join(', ')} still running; ${dir} is left in place`);
  rmSync(dir, { recursive: true, force: true });
}

const sayOnStderr = (line: string) => process.stderr.write(`${line}\n`);

/** Whether `gone` holds within the timeout, or once `target` (a pid, or minus a process group) is killed. */
async function stopsWithin(
  what: string,
  target: number,
  gone: () => boolean,
  { timeoutMs, say }: Required<StopOptions>,
): Promise<boolean> {
  const look = async () => gone();
  if (await pollUntil(look, { timeoutMs, everyMs: STOP_LOOK_MS })) return true;
  say(
    `stopping the cluster: ${what} still running ${timeoutMs / 1000} s after it was told to stop; killing it`,
  );
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // Gone between the last look and the kill.
  }
  return (await pollUntil(look, { timeoutMs: KILLED_GONE_MS, everyMs: STOP_LOOK_MS })) === true;
}

/**
 * The scripts' command line: writes `secrets` (the cluster URL with its password) to a private file in
 * the cluster's folder, never to the screen, prints how to load it and `runLine`, and keeps the cluster
 * up until Ctrl-C, which stops it and removes its folder.
 */
export function serveUntilInterrupted(
  cluster: LocalCluster,
  secrets: Record<string, string>,
  runLine: string,
): void {
  const env = join(cluster.dir, 'cluster.env');
  const lines = Object.entries(secrets).map(([name, value]) => `${name}='${value}'\n`);
  writeFileSync(env, lines.join(''), { mode: 0o600 });
  process.stdout.write(
    [
      `set -a; . ${env}; set +a`,
      runLine,
      '(Ctrl-C here stops the cluster and removes its directory)',
      '',
    ].join('\n'),
  );
  // The harness's exit hook (async-exit-hook) owns SIGINT and SIGTERM: it runs its hooks, then exits.
  // The stop is one of them, given the time a leader's shutdown takes.
  // Its types leave out forceExitTimeout, which the package has (async-exit-hook 2.0.1, index.js).
  (exitHook as typeof exitHook & { forceExitTimeout(ms: number): void }).forceExitTimeout(120_000);
  exitHook((stopped) => {
    if (stopped) void cluster.stop().finally(stopped);
  });
}
