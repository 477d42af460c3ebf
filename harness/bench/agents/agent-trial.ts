/**
 * An agent's side of one trial. Its worker threads connect its clients, which wait on a barrier of the
 * agent's; once every one of them waits, the agent's control connection blocks on the bench's release
 * lock (shared, as a burst's shares do), and the moment the bench lets go — every agent granted at once,
 * the bench having seen them all waiting in pg_locks — the agent opens its barrier. Then, on its own
 * clock, the warm-up, the measured window (its process's CPU metered) and the stop; its threads' results
 * go back as histograms and counts (agent-result.ts).
 */
import { availableParallelism, hostname } from 'node:os';
import { setTimeout as waitFor } from 'node:timers/promises';
import type pg from 'pg';
import { SharedBarrier } from '../../driver/barrier.ts';
import { Errors } from '../../errors.ts';
import type { BenchPool } from '../bench-pool.ts';
import { type BenchTask, PHASE } from '../bench-task.ts';
import { BURST_LOCK_CLASS } from '../burst-release.ts';
import { mergeThreadResults } from '../run-bench.ts';
import { meterWindow } from '../saturation.ts';
import { type AgentTrialResult, agentTrialResult } from './agent-result.ts';
import { type AgentTrialTask, localModuleUrl } from './agent-task.ts';

/** How often the agent looks whether all its clients wait (observed state, not an ordering). */
const LOOK_MS = 2;

function threadTasks(
  task: AgentTrialTask,
  connectionString: string,
  start: SharedBarrier,
  phase: SharedArrayBuffer,
): BenchTask[] {
  const strategyModuleUrl = localModuleUrl(task.design);
  return task.threads.map(
    (thread): BenchTask => ({
      contract: task.contract,
      strategyModuleUrl,
      connection: {
        connectionString,
        schema: task.schema,
        settings: { synchronous_commit: task.durability },
      },
      clients: thread.clients,
      node: thread.node,
      sku: task.sku,
      start: { buffer: start.buffer, parties: start.parties },
      phase,
      timeoutMs: task.timeoutMs,
      ...(task.open ? { open: { settings: task.open, ...thread.arrivals } } : {}),
    }),
  );
}

/** Until every client of the agent waits on its barrier; a thread that failed first ends the wait with its error. */
async function everyClientWaiting(
  start: SharedBarrier,
  clients: number,
  running: Promise<unknown>,
  timeoutMs: number,
): Promise<void> {
  let failed = false;
  const ended = running.catch(() => {
    failed = true;
  });
  const deadline = performance.now() + timeoutMs;
  while (start.arrived < clients) {
    if (failed) await running;
    if (performance.now() > deadline) throw Errors.barrierTimeout("the agent's clients", timeoutMs / 1000);
    await Promise.race([ended, waitFor(LOOK_MS)]);
  }
}

/** Blocks on the bench's release lock until the bench lets go of it, then lets go of its own share. */
async function awaitRelease(control: pg.ClientBase, key: number): Promise<void> {
  await control.query('SELECT pg_advisory_lock_shared($1, $2)', [BURST_LOCK_CLASS, key]);
  await control.query('SELECT pg_advisory_unlock_shared($1, $2)', [BURST_LOCK_CLASS, key]);
}

export async function runAgentTrial(
  control: pg.ClientBase,
  pool: BenchPool,
  connectionString: string,
  task: AgentTrialTask,
): Promise<AgentTrialResult> {
  const clients = task.threads.reduce((n, t) => n + t.clients.length, 0);
  // The agent itself is the last party: its clients start when it arrives, after the release.
  const start = SharedBarrier.create(clients + 1);
  const phase = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const phaseCell = new Int32Array(phase);
  const tasks = threadTasks(task, connectionString, start, phase);
  const running = Promise.all(tasks.map((t) => pool.run(t)));
  try {
    await everyClientWaiting(start, clients, running, task.timeoutMs);
    await awaitRelease(control, task.releaseKey);
    await start.arriveAndWait(task.timeoutMs, 'agent start');
    await waitFor(task.warmupMs);
    Atomics.store(phaseCell, 0, PHASE.measure);
    const began = performance.now();
    const endWindow = meterWindow(undefined);
    await waitFor(task.durationMs);
    const { generatorCores } = endWindow();
    Atomics.store(phaseCell, 0, PHASE.stop);
    const seconds = (performance.now() - began) / 1000;
    return agentTrialResult(mergeThreadResults(await running), {
      host: hostname(),
      pid: process.pid,
      cores: availableParallelism(),
      threads: tasks.length,
      clients,
      seconds,
      generatorCores,
    });
  } finally {
    // Whatever ended the trial early, its clients stop and disconnect before the next one.
    Atomics.store(phaseCell, 0, PHASE.stop);
    start.leave();
    await running.catch(() => undefined);
  }
}
