/**
 * Worker side of a benchmark series: each virtual client sends its contract's request (BenchDesign.sender:
 * a reserve with a fresh key and user, a pay of its pair's next key) in a closed loop (next request as soon
 * as the last one answered), or in the open model serves arrivals due on a schedule, until the main thread
 * says stop. Only requests that started while the phase was `measure` are counted.
 */

import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import type { SessionContext } from '../../strategies/contract.ts';
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import type { BenchSender, SendOnce } from '../contract/bench-series.ts';
import { SharedBarrier } from '../driver/barrier.ts';
import { sessionOptions } from '../driver/case-connection.ts';
import { Admission } from '../gate/admission.ts';
import { countUnhandledErrors } from '../registry/unhandled-errors.ts';
import { shareOfArrivals } from './arrivals.ts';
import { type BenchTask, type BenchThreadResult, CLIENT_APPLICATION_PREFIX, PHASE } from './bench-task.ts';
import { emptyTally, graceMs, isDropped, recordAnswer } from './open-model.ts';

// A design's forgotten promise would otherwise end this thread, and every client on it, unexplained.
countUnhandledErrors();

/** A client turned away by admission tries again after this long (its think time, not an ordering). */
const REJECTED_BACKOFF_MS = 2;

/** What every client loop on this thread shares: the design's request, the shared cells, and the counts. */
interface BenchThread {
  task: BenchTask;
  send: SendOnce;
  phase: Int32Array;
  start: SharedBarrier;
  gate: Admission | undefined;
  result: BenchThreadResult;
}

interface BenchClient {
  index: number;
  client: pg.Client;
}

const count = (into: Record<string, number>, key: string) => {
  into[key] = (into[key] ?? 0) + 1;
};

async function connectClient(task: BenchTask, index: number): Promise<BenchClient> {
  const client = new pg.Client({
    connectionString: task.connection.connectionString,
    application_name: `${CLIENT_APPLICATION_PREFIX}${index}`,
    options: sessionOptions(task.connection),
  });
  client.on('error', () => undefined);
  await client.connect();
  return { index, client };
}

function sessionContext(thread: BenchThread, client: pg.Client): SessionContext {
  const { task, phase, result } = thread;
  return {
    db: client,
    pause: async () => undefined,
    pausesAt: () => false,
    node: task.node,
    retried: (reason) => {
      if (Atomics.load(phase, 0) === PHASE.measure) count(result.designRetries, reason);
    },
  };
}

/** One request of the client's; its outcome, or ERROR (counted by SQLSTATE when measuring). */
async function sendOnce(
  thread: BenchThread,
  ctx: SessionContext,
  client: number,
  n: number,
  measuring: boolean,
): Promise<string> {
  let outcome: string;
  try {
    outcome = await thread.send(ctx, client, n);
  } catch (error: unknown) {
    outcome = 'ERROR';
    if (measuring) count(thread.result.errorsBySqlstate, sqlstateOf(error) ?? 'other');
  }
  if (outcome === thread.task.counted) thread.result.countedTotal += 1;
  if (measuring) count(thread.result.outcomes, outcome);
  return outcome;
}

/**
 * One client's closed loop, from the start barrier until the phase says stop. Its first request is sent
 * whatever the phase, and one turned away by admission is tried again as the same request n, so that
 * clients that share their keys (a pair of clients sending the same keys) each send every key of theirs.
 */
async function sendUntilStopped(thread: BenchThread, { index, client }: BenchClient): Promise<void> {
  const { task, phase, gate, result } = thread;
  const ctx = sessionContext(thread, client);
  await thread.start.arriveAndWait(task.timeoutMs, 'bench start');
  for (let n = 0; n === 0 || Atomics.load(phase, 0) !== PHASE.stop; ) {
    const measuring = Atomics.load(phase, 0) === PHASE.measure;
    const began = performance.now();
    if (gate) {
      const ticket = await gate.enter();
      if (ticket === 'REJECTED_QUEUE_FULL' || ticket === 'REJECTED_WAIT_TIMEOUT') {
        if (measuring) result.rejected += 1;
        await delay(REJECTED_BACKOFF_MS);
        continue;
      }
    }
    try {
      await sendOnce(thread, ctx, index, n, measuring);
    } finally {
      gate?.exit();
    }
    n += 1;
    if (measuring) result.latenciesMs.push(performance.now() - began);
  }
}

/**
 * One client of the open model: it takes the thread's next arrival, waits until it is due (pacing to the
 * schedule, not an ordering), and sends it unless it is already past the grace. Busy clients take none,
 * so an arrival waits for the first client free and that wait counts in its latency.
 */
async function serveArrivals(thread: BenchThread, { index, client }: BenchClient, due: () => number) {
  const { task, phase, result } = thread;
  const open = task.open;
  const tally = result.open;
  if (!open || !tally) throw new Error('serveArrivals needs an open task');
  const grace = graceMs(open.settings);
  const ctx = sessionContext(thread, client);
  for (let n = 0; Atomics.load(phase, 0) !== PHASE.stop; n++) {
    const dueMs = due();
    // A timer may fire up to a millisecond early (libuv counts whole ms): wait again until truly due.
    for (let early = dueMs - performance.now(); early > 0; early = dueMs - performance.now()) {
      await delay(early);
    }
    if (Atomics.load(phase, 0) === PHASE.stop) break;
    const measuring = Atomics.load(phase, 0) === PHASE.measure;
    const sentMs = performance.now();
    if (isDropped(dueMs, sentMs, grace)) {
      if (measuring) tally.dropped += 1;
      continue;
    }
    const outcome = await sendOnce(thread, ctx, index, n, measuring);
    if (!measuring) continue;
    const times = { dueMs, sentMs, answeredMs: performance.now() };
    result.latenciesMs.push(times.answeredMs - dueMs);
    recordAnswer(tally, times, outcome === 'HELD', open.settings.latencyLimitMs);
  }
}

/** The due times of this thread's arrivals, on its clock, from the moment its clients passed the barrier. */
function dueTimes(open: NonNullable<BenchTask['open']>): () => number {
  const schedule = shareOfArrivals(open.settings, open.first, open.stride);
  const epoch = performance.now();
  return () => epoch + schedule.next().value;
}

/** Every client of the thread, in the closed loop or serving arrivals, until the phase says stop. */
async function runClients(thread: BenchThread, clients: readonly BenchClient[]): Promise<void> {
  const open = thread.task.open;
  if (!open) {
    await Promise.all(clients.map((client) => sendUntilStopped(thread, client)));
    return;
  }
  await Promise.all(clients.map(() => thread.start.arriveAndWait(thread.task.timeoutMs, 'bench start')));
  const due = dueTimes(open);
  await Promise.all(clients.map((client) => serveArrivals(thread, client, due)));
}

/** The request the task's clients send, as the design's contract makes it (its tally kept in `result`). */
async function sendOf(task: BenchTask, result: BenchThreadResult): Promise<SendOnce> {
  const { sender } = (await import(task.sender)) as { sender: BenchSender };
  return sender(task.strategyModuleUrl, task.sku, result.tally);
}

export default async function runBenchClients(task: BenchTask): Promise<BenchThreadResult> {
  const result: BenchThreadResult = {
    latenciesMs: [],
    outcomes: {},
    errorsBySqlstate: {},
    rejected: 0,
    designRetries: {},
    countedTotal: 0,
    tally: {},
    ...(task.open ? { open: emptyTally() } : {}),
  };
  const thread: BenchThread = {
    task,
    send: await sendOf(task, result),
    phase: new Int32Array(task.phase),
    start: new SharedBarrier(task.start.buffer, task.start.parties),
    gate: task.admission && new Admission(task.admission.settings, task.admission.buffer),
    result,
  };
  const clients = await Promise.all(task.clients.map((index) => connectClient(task, index)));
  try {
    await runClients(thread, clients);
  } finally {
    await Promise.all(clients.map(({ client }) => client.end().catch(() => undefined)));
  }
  return thread.result;
}
