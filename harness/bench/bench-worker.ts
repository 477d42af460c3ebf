/**
 * Worker side of a benchmark series: each virtual client reserves in a closed loop (next request as soon
 * as the last one answered) with a fresh key and user each time, until the main thread says stop. Only
 * requests that started while the phase was `measure` are counted.
 */
import { setTimeout as backOff } from 'node:timers/promises';
import pg from 'pg';
import type { SessionContext, Strategy } from '../../strategies/contract.ts';
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import { SharedBarrier } from '../driver/barrier.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { Admission } from '../http/admission.ts';
import { importStrategy } from '../registry/registry.ts';
import { type BenchTask, type BenchThreadResult, CLIENT_APPLICATION_PREFIX, PHASE } from './bench-task.ts';

/** A client turned away by admission tries again after this long (its think time, not an ordering). */
const REJECTED_BACKOFF_MS = 2;

/** What every client loop on this thread shares: the strategy, the shared cells, and the counts. */
interface BenchThread {
  task: BenchTask;
  strategy: Strategy;
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

/** One client's closed loop, from the start barrier until the phase says stop. */
async function reserveUntilStopped(thread: BenchThread, { index, client }: BenchClient): Promise<void> {
  const { task, strategy, phase, gate, result } = thread;
  const ctx: SessionContext = {
    db: client,
    pause: async () => undefined,
    node: task.node,
    retried: (reason) => {
      if (Atomics.load(phase, 0) === PHASE.measure) count(result.designRetries, reason);
    },
  };
  await thread.start.arriveAndWait(task.timeoutMs, 'bench start');
  for (let n = 0; Atomics.load(phase, 0) !== PHASE.stop; n++) {
    const measuring = Atomics.load(phase, 0) === PHASE.measure;
    const began = performance.now();
    if (gate) {
      const ticket = await gate.enter();
      if (ticket === 'REJECTED_QUEUE_FULL' || ticket === 'REJECTED_WAIT_TIMEOUT') {
        if (measuring) result.rejected += 1;
        await backOff(REJECTED_BACKOFF_MS);
        continue;
      }
    }
    const request = {
      requestKey: `bench-${index}-${n}`,
      user: `bench-user-${index}-${n}`,
      sku: task.sku,
      ttlMs: 60_000,
    };
    let outcome: string;
    try {
      outcome = (await strategy.reserve(ctx, request)).outcome;
    } catch (error: unknown) {
      outcome = 'ERROR';
      if (measuring) count(result.errorsBySqlstate, sqlstateOf(error) ?? 'other');
    } finally {
      gate?.exit();
    }
    if (outcome === 'HELD') result.heldTotal += 1;
    if (measuring) {
      result.latenciesMs.push(performance.now() - began);
      count(result.outcomes, outcome);
    }
  }
}

export default async function runBenchClients(task: BenchTask): Promise<BenchThreadResult> {
  const thread: BenchThread = {
    task,
    strategy: await importStrategy(task.strategyModuleUrl),
    phase: new Int32Array(task.phase),
    start: new SharedBarrier(task.start.buffer, task.start.parties),
    gate: task.admission && new Admission(task.admission.settings, task.admission.buffer),
    result: {
      latenciesMs: [],
      outcomes: {},
      errorsBySqlstate: {},
      rejected: 0,
      designRetries: {},
      heldTotal: 0,
    },
  };
  const clients = await Promise.all(task.clients.map((index) => connectClient(task, index)));
  try {
    await Promise.all(clients.map((client) => reserveUntilStopped(thread, client)));
  } finally {
    await Promise.all(clients.map(({ client }) => client.end().catch(() => undefined)));
  }
  return thread.result;
}
