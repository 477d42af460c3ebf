/**
 * Who was busy while a series was measured: the load generator (this process, worker threads included)
 * and the server's processes, each as CPU time ÷ wall time of the window, in cores. Without it a driver
 * that ran out of CPU reads like a design that ran out of throughput.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';

/**
 * A generator that used this much CPU was itself a bottleneck: each worker thread's event loop runs on one
 * core, and on a small machine every core the generator takes is one the server cannot have.
 */
export const CLIENT_BOUND_CORES = 0.8;

export interface Saturation {
  generatorCores: number;
  /** null (shown as n/a) when the server's processes cannot be read: another host, or another container. */
  serverCores: number | null;
  clientBound: boolean;
}

const round = (x: number) => Math.round(x * 100) / 100;

let ticksPerSecond: number | undefined;

/** /proc counts CPU time in USER_HZ ticks, 100 on nearly every Linux build; getconf knows for sure. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of each process still there; the command name may hold spaces, so fields count from ')'. */
function readTicks(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of proc(5); the slice starts at field 3.
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // It ended (an autovacuum worker, say): its time cannot be split at the window's edges anyway.
    }
  }
  return ticks;
}

/**
 * Whether the server's backends are processes of this machine: the backend of `control` must show the
 * run's own database (a unique name) in its process title. A server on another host, or in a container
 * whose pids mean something else here, fails the check.
 */
export async function serverIsLocal(control: ClientBase, database: string): Promise<boolean> {
  const { rows } = await control.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  try {
    return readFileSync(`/proc/${rows[0]?.pid}/cmdline`, 'utf8').includes(database);
  } catch {
    return false;
  }
}

/**
 * The processes that served a series: the backends of its clients (by application name) and the server's
 * auxiliary processes (WAL writer, checkpointer, I/O workers…), which do work the series' writes cause.
 * The harness's own connection, which samples lock waits, is not among them.
 */
export async function seriesServerPids(control: ClientBase, applicationPrefix: string): Promise<number[]> {
  const { rows } = await control.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE (datname = current_database() AND starts_with(application_name, $1))
         OR backend_type <> 'client backend'`,
    [applicationPrefix],
  );
  return rows.map((r) => r.pid);
}

/**
 * CPU time ÷ wall time, in cores, of these processes (all their threads) from now until the function
 * returned is called. A process that ended in between counts nothing: read it before it ends.
 */
export function meterProcesses(pids: readonly number[]): () => number {
  const began = performance.now();
  const before = readTicks(pids);
  return () => {
    const seconds = (performance.now() - began) / 1000;
    const after = readTicks([...before.keys()]);
    let used = 0;
    for (const [pid, ticks] of before) used += (after.get(pid) ?? ticks) - ticks;
    return round(used / clockTicks() / seconds);
  };
}

/** Starts measuring now; the function returned ends the window and reports it. */
export function meterWindow(serverPids: readonly number[] | undefined): () => Saturation {
  const began = performance.now();
  const generatorBefore = process.cpuUsage();
  const endServer = serverPids && meterProcesses(serverPids);
  return () => {
    const seconds = (performance.now() - began) / 1000;
    const generator = process.cpuUsage(generatorBefore);
    const generatorCores = round((generator.user + generator.system) / 1e6 / seconds);
    const serverCores = endServer ? endServer() : null;
    return { generatorCores, serverCores, clientBound: generatorCores >= CLIENT_BOUND_CORES };
  };
}
