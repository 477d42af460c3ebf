/**
 * A member's processes on this machine, read from /proc (Linux): the postmaster serving a data directory
 * (its `postmaster.pid`, confirmed by the process's working directory, which postgres sets to its data
 * directory), the supervisors above it (a manager's keeper), every process below one, and how one was
 * started (executable, arguments, environment, user) — what a crash of a whole node kills, and what
 * brings it back as its service manager would.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { postmasterPid, processAlive } from '../database/run-state.ts';

/** How a process was started: enough to start it again. */
export interface StartedAs {
  executable: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  uid: number;
  gid: number;
}

/** `comm` and parent pid of a process (/proc/PID/stat), or undefined when it is gone. */
function statOf(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces: the fields after its last ")" are fixed.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { comm, ppid };
  } catch {
    return undefined;
  }
}

/** The postmaster serving `dataDir` on this machine, or why there is none to be found here. */
export function localPostmaster(dataDir: string): number {
  const pid = postmasterPid(dataDir);
  const cwd = pid === undefined ? undefined : safeReadlink(`/proc/${pid}/cwd`);
  if (pid === undefined || cwd !== dataDir)
    throw new Error(
      `no postmaster of ${dataDir} runs on this machine: a member's kill needs the member on the suite's machine`,
    );
  return pid;
}

function safeReadlink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** The outermost of the unbroken chain of ancestors of `pid` whose command is `comm`, or undefined. */
export function outermostAncestor(pid: number, comm: string): number | undefined {
  let found: number | undefined;
  let at = statOf(pid)?.ppid;
  while (at !== undefined && at > 1) {
    const stat = statOf(at);
    if (stat?.comm !== comm) break;
    found = at;
    at = stat.ppid;
  }
  return found;
}

/** `root` and every process below it, parents before children. */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = statOf(pid);
    if (stat) parents.set(pid, stat.ppid);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/** How `pid` was started, read before it is killed. */
export function startedAs(pid: number): StartedAs {
  const split = (file: string) => readFileSync(join('/proc', String(pid), file), 'utf8').split('\0');
  const [, ...args] = split('cmdline').filter((a) => a !== '');
  const env: Record<string, string> = {};
  for (const line of split('environ')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const id = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? -1);
  return {
    executable: readlinkSync(`/proc/${pid}/exe`),
    args,
    cwd: readlinkSync(`/proc/${pid}/cwd`),
    env,
    uid: id('Uid'),
    gid: id('Gid'),
  };
}

/** SIGKILL to every process of `pids` still there (a supervisor first, so that it restarts nothing). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    if (!processAlive(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the look and the signal: what the kill wanted.
    }
  }
}
