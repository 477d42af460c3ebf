/**
 * `reservebench bench`: every strategy × client count (× admission), each series on fresh tables with
 * stock that does not run out: a warm-up, then a measured window of closed-loop reservations; throughput,
 * latency percentiles (HDR histogram), errors by SQLSTATE, lock waiting sampled from pg_stat_activity,
 * and the invariant audit afterwards (a fast design that drifts is not fast, it is wrong).
 */
import { setTimeout as waitFor } from 'node:timers/promises';
import type { StrategyRef } from '../../strategies/contract.ts';
import { openRunDatabase, type RunDatabase } from '../database/database.ts';
import { type Environment, readEnvironment } from '../database/environment.ts';
import { SharedBarrier } from '../driver/barrier.ts';
import { type LatencyPercentiles, summarizeLatency } from '../driver/latency.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import { oneLine } from '../errors.ts';
import { Admission, type AdmissionSettings } from '../http/admission.ts';
import { BenchPool } from './bench-pool.ts';
import type { BenchTask, BenchThreadResult } from './bench-task.ts';
import { PHASE } from './bench-task.ts';
import { type LockWait, sampleLockWaits } from './lock-sampler.ts';
import { measureUncontended, type UncontendedEntry } from './uncontended.ts';

export const BENCH_SKU = 'sku-bench-01';

export interface BenchSettings {
  strategies: StrategyRef[];
  clients: number[];
  /** With admission: each client count runs once without and once behind this gate. */
  admission?: AdmissionSettings;
  warmupMs: number;
  durationMs: number;
  stock: number;
  databaseUrl?: string;
  timeoutMs: number;
  /** Worker threads for the clients (default: one per core). */
  threads?: number;
  onSeries?: (entry: BenchEntry) => void;
}

export interface BenchEntry {
  strategy: string;
  clients: number;
  /** `limit:waiting`, or null without admission. */
  admission: string | null;
  status: 'ok' | 'fail';
  /** HELD answers per second in the measured window. */
  throughput: number;
  latency: LatencyPercentiles;
  requests: number;
  outcomes: Record<string, number>;
  /** The driver never retries a request; a client turned away by admission tries again (counted here). */
  retries: number;
  errors: Record<string, number>;
  lockWait: Omit<LockWait, 'samples'>;
  drift: number;
  oversold: number;
  problems: string[];
}

export interface BenchResult {
  ok: boolean;
  environment: Environment;
  bench: BenchEntry[];
  uncontended: UncontendedEntry[];
  kept: string[];
}

function merge(results: readonly BenchThreadResult[]): BenchThreadResult {
  const sum = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
    return into;
  };
  return {
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    outcomes: results.reduce((acc, r) => sum(acc, r.outcomes), {}),
    errorsBySqlstate: results.reduce((acc, r) => sum(acc, r.errorsBySqlstate), {}),
    rejected: results.reduce((acc, r) => acc + r.rejected, 0),
    heldTotal: results.reduce((acc, r) => acc + r.heldTotal, 0),
  };
}

async function runSeries(
  db: RunDatabase,
  pool: BenchPool,
  ref: StrategyRef,
  clients: number,
  admission: AdmissionSettings | undefined,
  settings: BenchSettings,
): Promise<BenchEntry> {
  const label = admission ? `${admission.limit}:${admission.maxWaiting}` : null;
  const schema = await db.createCaseSchema(`bench_${ref.strategy.id}_${clients}${label ? '_gated' : ''}`);
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await ref.strategy.setup(db.admin, [{ sku: BENCH_SKU, total: settings.stock }]);

    const start = SharedBarrier.create(clients);
    const phase = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const phaseCell = new Int32Array(phase);
    const gate = admission && new Admission(admission);
    const threads = Math.min(pool.threads, clients);
    const tasks = Array.from({ length: threads }, (_, t): BenchTask => {
      const indices = Array.from({ length: clients }, (_, i) => i).filter((i) => i % threads === t);
      return {
        strategyModuleUrl: ref.moduleUrl,
        target: { connectionString: db.connectionString, schema },
        clients: indices,
        node: nodeIdentity(schema, t, threads),
        sku: BENCH_SKU,
        start: { buffer: start.buffer, parties: clients },
        phase,
        timeoutMs: settings.timeoutMs,
        ...(gate && admission ? { admission: { buffer: gate.buffer, settings: admission } } : {}),
      };
    });
    const running = Promise.all(tasks.map((task) => pool.run(task)));
    // The window opens once every client has connected and passed the start barrier (or the threads ended
    // early with an error, which `await running` reports below).
    let tasksEnded = false;
    const ended = running.finally(() => {
      tasksEnded = true;
    });
    while (!start.released && !tasksEnded) await Promise.race([ended.catch(() => undefined), waitFor(5)]);
    await waitFor(settings.warmupMs);
    Atomics.store(phaseCell, 0, PHASE.measure);
    const windowStart = performance.now();
    const lockWait = await sampleLockWaits(
      db.admin,
      () => performance.now() - windowStart >= settings.durationMs,
    );
    Atomics.store(phaseCell, 0, PHASE.stop);
    const seconds = (performance.now() - windowStart) / 1000;
    const merged = merge(await running);

    // The harness's own count: every HELD answer of the series against what the design says remains.
    const remaining = await ref.strategy.remaining(db.admin, BENCH_SKU);
    const drift = settings.stock - remaining - merged.heldTotal;
    const oversold = Math.max(0, merged.heldTotal - settings.stock);
    const problems = [
      ...(drift !== 0 ? [`drift ${drift}`] : []),
      ...(oversold > 0 ? [`oversold ${oversold}`] : []),
      ...(merged.outcomes.SOLD_OUT
        ? [`stock ran out (${merged.outcomes.SOLD_OUT} SOLD_OUT): raise --stock`]
        : []),
    ];
    return {
      strategy: ref.strategy.id,
      clients,
      admission: label,
      status: problems.length === 0 ? 'ok' : 'fail',
      throughput: Math.round(((merged.outcomes.HELD ?? 0) / seconds) * 10) / 10,
      latency: summarizeLatency(merged.latenciesMs),
      requests: merged.latenciesMs.length,
      outcomes: merged.outcomes,
      retries: merged.rejected,
      errors: merged.errorsBySqlstate,
      lockWait: { meanWaiters: lockWait.meanWaiters, shareOfTime: lockWait.shareOfTime },
      drift,
      oversold,
      problems,
    };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    await db.dropCaseSchema(schema);
  }
}

function failedEntry(
  ref: StrategyRef,
  clients: number,
  admission: string | null,
  error: unknown,
): BenchEntry {
  return {
    strategy: ref.strategy.id,
    clients,
    admission,
    status: 'fail',
    throughput: 0,
    latency: { p50: 0, p95: 0, p99: 0, max: 0 },
    requests: 0,
    outcomes: {},
    retries: 0,
    errors: {},
    lockWait: { meanWaiters: 0, shareOfTime: 0 },
    drift: 0,
    oversold: 0,
    problems: [`the series could not run: ${oneLine(error)}`],
  };
}

export async function runBench(settings: BenchSettings): Promise<BenchResult> {
  const db = await openRunDatabase(settings.databaseUrl ? { databaseUrl: settings.databaseUrl } : {});
  const bench: BenchEntry[] = [];
  const uncontended: UncontendedEntry[] = [];
  const kept: string[] = [];
  try {
    const environment = await readEnvironment(db.admin, settings.databaseUrl ? 'url' : 'embedded');
    const pool = new BenchPool(settings.threads);
    try {
      for (const ref of settings.strategies) {
        uncontended.push(await measureUncontended(db, ref, settings.stock, BENCH_SKU));
        for (const gate of settings.admission ? [undefined, settings.admission] : [undefined]) {
          for (const clients of settings.clients) {
            const label = gate ? `${gate.limit}:${gate.maxWaiting}` : null;
            const entry = await runSeries(db, pool, ref, clients, gate, settings).catch((error: unknown) =>
              failedEntry(ref, clients, label, error),
            );
            bench.push(entry);
            settings.onSeries?.(entry);
          }
        }
      }
    } finally {
      await pool.close();
    }
    return { ok: bench.every((e) => e.status === 'ok'), environment, bench, uncontended, kept };
  } finally {
    kept.push(...(await db.close({ keep: false })));
  }
}
