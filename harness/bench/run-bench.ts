/**
 * `reservebench bench`: every strategy × client count (× admission), each series on fresh tables with
 * stock that does not run out: a warm-up, then a measured window of closed-loop requests; throughput,
 * latency percentiles (HDR histogram), errors by SQLSTATE, lock waiting sampled from pg_stat_activity,
 * the CPU the generator and the server used, and the invariant audit afterwards (a fast design that
 * drifts is not fast, it is wrong). Each series runs several trials, interleaved with the other series,
 * and is summarized by the median and a 95% interval over its trials. What a series' clients send, which
 * answer its throughput counts and how a trial is audited are its design's contract's (BenchDesign), in
 * the same loop, trials and report for every contract.
 */
import { setTimeout as waitFor } from 'node:timers/promises';
import { median } from 'simple-statistics';
import {
  BENCH_SKU,
  type BenchAudit,
  type BenchDesign,
  type UncontendedEntry,
} from '../contract/bench-series.ts';
import { openRunDatabase, type RunDatabase } from '../database/database.ts';
import { DEFAULT_DURABILITY, type Durability } from '../database/durability.ts';
import { type Environment, readEnvironment } from '../database/environment.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import { checkConnectionRoom } from '../database/preflight.ts';
import { SharedBarrier } from '../driver/barrier.ts';
import { type LatencyPercentiles, summarizeLatency } from '../driver/latency.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import { oneLine } from '../errors.ts';
import { Admission, type AdmissionSettings } from '../gate/admission.ts';
import { type SourceEntry, sourceEntry } from '../registry/source-manifest.ts';
import { type AgentSeriesFigure, type AgentsTrial, agentsOverTrials } from './agents/agent-figures.ts';
import { BenchPool } from './bench-pool.ts';
import type { BenchTask, BenchThreadResult } from './bench-task.ts';
import { CLIENT_APPLICATION_PREFIX, PHASE } from './bench-task.ts';
import { refuseUnbenchable } from './benchable.ts';
import { type LockWait, sampleLockWaits } from './lock-sampler.ts';
import { mergeTallies, type OpenSettings, type OpenTrial, openSeries, openTrial } from './open-model.ts';
import { meterWindow, type Saturation, seriesServerPids, serverIsLocal } from './saturation.ts';
import { type Interval, medianInterval } from './statistics.ts';

export interface BenchSettings {
  /** Each design's series, as its contract makes it (ContractBench.design); one contract per bench. */
  designs: readonly BenchDesign[];
  /** The contract the designs are of: what the report's throughput counts (its ContractBench). */
  contract: string;
  clients: number[];
  /** With admission: each client count runs once without and once behind this gate. */
  admission?: AdmissionSettings;
  /**
   * The open model: each rate (arrivals per second) a series per client count, its clients the pool that
   * serves the arrivals. Absent, every series is a closed loop.
   */
  open?: { rates: number[]; arrivals: OpenSettings['arrivals']; seed: number; latencyLimitMs: number | null };
  warmupMs: number;
  durationMs: number;
  stock: number;
  databaseUrl?: string | undefined;
  /** The embedded server's major (`--postgres`; default 18); not with `databaseUrl`. */
  postgres?: PostgresMajor | undefined;
  /**
   * Whether every commit waits for its WAL flush, one series per value (default on only): with both,
   * each design's durability cost is the ratio of its two series.
   */
  durabilities?: readonly Durability[] | undefined;
  timeoutMs: number;
  /** Worker threads for the clients (default: one per core). */
  threads?: number;
  /**
   * Runs of every series (default 1), interleaved: each series once, then each again, so that drift of
   * the machine hits every series alike.
   */
  trials?: number;
  /** After each trial of each series, e.g. `hot-row [4:8] × 16, trial 2/3`. */
  onTrial?: (label: string) => void;
  /**
   * Awaited on the main thread just before and just after each trial of each series, off the clock (the
   * yardstick runs pgbench there, so that both sides of its comparison interleave). An error ends the bench.
   */
  beforeTrial?: (slot: TrialSlot) => Promise<void>;
  afterTrial?: (slot: TrialSlot) => Promise<void>;
  /** Who runs the clients: this process's worker threads unless given (load agents: bench/agents/). */
  drivers?: TrialDrivers;
}

/** Which trial of which series is about to run, or has just run. */
export interface TrialSlot {
  strategy: string;
  clients: number;
  admission: string | null;
  durability: Durability;
  /** Arrivals per second in the open model, null in a closed loop. */
  rate: number | null;
  /** 1-based. */
  trial: number;
}

/** What one run of a series measured (with load agents, also each agent's part: AgentsTrial). */
export interface TrialEntry extends Partial<AgentsTrial> {
  /** 1-based, in the order the trials ran. */
  trial: number;
  /** When its measured window opened: throughput against time shows drift of the machine. */
  startedAt: string;
  status: 'ok' | 'fail';
  /** HELD answers per second in the measured window. */
  throughput: number;
  latency: LatencyPercentiles;
  requests: number;
  outcomes: Record<string, number>;
  /** The driver never retries a request; a client turned away by admission tries again (counted here). */
  retries: number;
  /** Retries the design made itself while measuring, by reason (optimistic-cas: version; serializable: 40001). */
  designRetries: Record<string, number>;
  errors: Record<string, number>;
  lockWait: Omit<LockWait, 'samples'>;
  saturation: Saturation;
  drift: number;
  oversold: number;
  problems: string[];
  /** Open model only: the arrivals, what became of them, and the service-time percentiles. */
  open?: OpenTrial;
  /** The contract's own counts over the series, warm-up included (e.g. the distinct keys answered). */
  tally?: Record<string, number>;
}

/**
 * A series over its trials. The statistics come from the trials that passed their audit; counts (requests,
 * outcomes, retries, errors, drift, oversold) are summed over all trials, lock waiting is their mean.
 */
export interface BenchEntry {
  strategy: string;
  clients: number;
  /** `limit:waiting`, or null without admission. */
  admission: string | null;
  /** Its sessions' synchronous_commit: on, each commit waits for its WAL flush. */
  durability: Durability;
  /** ok when every trial ran and passed its audit. */
  status: 'ok' | 'fail';
  /** The median over the trials (as `median.throughput`), kept where readers of one-trial reports look. */
  throughput: number;
  /** Medians over the trials of p50, p95 and p99; max is the highest of any trial. */
  latency: LatencyPercentiles;
  median: { throughput: number; p99: number };
  /** 95% percentile-bootstrap interval of each median; null with fewer than two passing trials. */
  ci95: { throughput: Interval; p99: Interval } | null;
  /** Median cores over the trials; client-bound when any trial's generator was. */
  saturation: Saturation;
  requests: number;
  outcomes: Record<string, number>;
  retries: number;
  designRetries: Record<string, number>;
  errors: Record<string, number>;
  lockWait: Omit<LockWait, 'samples'>;
  drift: number;
  oversold: number;
  problems: string[];
  /**
   * Open model only (latency is then from each arrival's due time): counts summed over the trials,
   * goodput and service percentiles as latency is.
   */
  open?: OpenTrial;
  /** The contract's own counts, summed over the trials (e.g. the distinct keys answered). */
  tally?: Record<string, number>;
  /** Load agents only: each agent over the trials. */
  agents?: AgentSeriesFigure[];
  trials: TrialEntry[];
}

export interface BenchResult {
  ok: boolean;
  environment: Environment;
  /** Every design the bench ran, with its SHA-256 (source-manifest.ts). */
  sources: SourceEntry[];
  bench: BenchEntry[];
  uncontended: UncontendedEntry[];
  kept: string[];
  /** The contract the designs are of. */
  contract: string;
}

function sumCounts(records: readonly Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const record of records) for (const [k, v] of Object.entries(record)) total[k] = (total[k] ?? 0) + v;
  return total;
}

/** Several threads' (or agents') counts as one: every count summed. */
export function sumTrialCounts(parts: readonly TrialCounts[]): TrialCounts {
  return {
    outcomes: sumCounts(parts.map((r) => r.outcomes)),
    errorsBySqlstate: sumCounts(parts.map((r) => r.errorsBySqlstate)),
    rejected: parts.reduce((acc, r) => acc + r.rejected, 0),
    designRetries: sumCounts(parts.map((r) => r.designRetries)),
    countedTotal: parts.reduce((acc, r) => acc + r.countedTotal, 0),
    tally: sumCounts(parts.map((r) => r.tally)),
  };
}

/** The results of several threads as one: samples joined, counts summed. */
export function mergeThreadResults(results: readonly BenchThreadResult[]): BenchThreadResult {
  return {
    ...sumTrialCounts(results),
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    ...(results.some((r) => r.open) ? { open: mergeTallies(results.flatMap((r) => r.open ?? [])) } : {}),
  };
}

export interface Series {
  design: BenchDesign;
  clients: number;
  admission: AdmissionSettings | undefined;
  /** `limit:waiting`, or null without admission. */
  label: string | null;
  durability: Durability;
  open: OpenSettings | undefined;
}

/** What clients are dealt in: one each, or the groups that share their keys (BenchDesign.group). */
export const clientUnit = (design: BenchDesign) => design.group ?? ((i: number) => i);

/**
 * Clients dealt over `parts` (threads, or agents) in turn, unit by unit: clients that share their keys
 * run on one thread, so that its count of distinct keys is theirs. Never more
 * parts than units: none is left without a client.
 */
export function dealClients(design: BenchDesign, indices: readonly number[], parts: number): number[][] {
  const unit = clientUnit(design);
  const units = [...new Set(indices.map(unit))];
  const used = Math.min(parts, units.length);
  return Array.from({ length: used }, (_, t) => indices.filter((i) => units.indexOf(unit(i)) % used === t));
}

/** One task per worker thread, with its share of the series' clients. */
function threadTasks(
  db: RunDatabase,
  pool: BenchPool,
  { design, clients, admission, durability, open }: Series,
  schema: string,
  { start, phase }: { start: SharedBarrier; phase: SharedArrayBuffer },
  timeoutMs: number,
): BenchTask[] {
  const gate = admission && new Admission(admission);
  const all = Array.from({ length: clients }, (_, i) => i);
  const shares = dealClients(design, all, pool.threads);
  const threads = shares.length;
  return shares.map((indices, t): BenchTask => {
    return {
      sender: design.sender,
      counted: design.counted,
      strategyModuleUrl: design.moduleUrl,
      connection: {
        connectionString: db.connectionString,
        schema,
        settings: { synchronous_commit: durability },
      },
      clients: indices,
      node: nodeIdentity(schema, t, threads),
      sku: BENCH_SKU,
      start: { buffer: start.buffer, parties: clients },
      phase,
      timeoutMs,
      ...(gate && admission ? { admission: { buffer: gate.buffer, settings: admission } } : {}),
      ...(open ? { open: { settings: open, first: t, stride: threads } } : {}),
    };
  });
}

/**
 * Resolves once every client has connected and passed the start barrier, or the threads ended early with
 * an error (which awaiting `running` reports).
 */
async function clientsStarted(start: SharedBarrier, running: Promise<unknown>): Promise<void> {
  let tasksEnded = false;
  const ended = running.finally(() => {
    tasksEnded = true;
  });
  while (!start.released && !tasksEnded) await Promise.race([ended.catch(() => undefined), waitFor(5)]);
}

/** When the measured window opened, how long it was, and what the server and the generator did in it. */
export interface MeasuredWindow {
  startedAt: string;
  seconds: number;
  lockWait: LockWait;
  saturation: Saturation;
}

/** The warm-up, then the measured window: lock waits sampled, CPU metered, until the clients are told to stop. */
async function measuredWindow(
  db: RunDatabase,
  phaseCell: Int32Array,
  serverPids: number[] | undefined,
  settings: BenchSettings,
): Promise<MeasuredWindow> {
  await waitFor(settings.warmupMs);
  Atomics.store(phaseCell, 0, PHASE.measure);
  const windowStart = performance.now();
  const startedAt = new Date().toISOString();
  const endWindow = meterWindow(serverPids);
  const lockWait = await sampleLockWaits(
    db.admin,
    () => performance.now() - windowStart >= settings.durationMs,
  );
  const saturation = endWindow();
  Atomics.store(phaseCell, 0, PHASE.stop);
  const seconds = (performance.now() - windowStart) / 1000;
  return { startedAt, seconds, lockWait, saturation };
}

/** What a trial's clients counted, summed over every thread (and agent); the samples are summarized apart. */
export type TrialCounts = Omit<BenchThreadResult, 'latenciesMs' | 'open'>;

/** One trial as its clients ran it, wherever they ran: the window, the counts, the latencies. */
export interface DrivenTrial {
  window: MeasuredWindow;
  counts: TrialCounts;
  latency: LatencyPercentiles;
  requests: number;
  open?: OpenTrial;
  /** Load agents only: each agent's own figures and the histogram merged from theirs. */
  agents?: AgentsTrial;
}

/** Runs the clients of one trial on tables already set up; closed when the bench ends. */
export interface TrialDriver {
  drive(series: Series, schema: string): Promise<DrivenTrial>;
  close(): Promise<void>;
}

/** How a bench's trials are driven, made once the run database is open. */
export type TrialDrivers = (
  db: RunDatabase,
  context: { localServer: boolean; settings: BenchSettings },
) => Promise<TrialDriver>;

/** The default: every client on a worker thread of this process, one phase cell and barrier for all. */
export const localThreads: TrialDrivers = async (db, { localServer, settings }) => {
  const pool = new BenchPool(settings.threads);
  return {
    async drive(series, schema) {
      const start = SharedBarrier.create(series.clients);
      const phase = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
      const tasks = threadTasks(db, pool, series, schema, { start, phase }, settings.timeoutMs);
      const running = Promise.all(tasks.map((task) => pool.run(task)));
      await clientsStarted(start, running);
      // Every client is connected once the barrier opens, so its backend can be found now, off the clock.
      const serverPids = localServer
        ? await seriesServerPids(db.admin, CLIENT_APPLICATION_PREFIX)
        : undefined;
      const window = await measuredWindow(db, new Int32Array(phase), serverPids, settings);
      const { latenciesMs, open, ...counts } = mergeThreadResults(await running);
      return {
        window,
        counts,
        latency: summarizeLatency(latenciesMs),
        requests: latenciesMs.length,
        ...(series.open && open ? { open: openTrial(series.open, open, window.seconds) } : {}),
      };
    },
    close: () => pool.close(),
  };
};

async function runTrial(
  db: RunDatabase,
  driver: TrialDriver,
  series: Series,
  trial: number,
  settings: BenchSettings,
): Promise<TrialEntry> {
  const { design, clients, label, durability, open } = series;
  const schema = await db.createCaseSchema(
    `bench_${design.id}_${clients}${label ? '_gated' : ''}${durability === 'off' ? '_async' : ''}${open ? `_r${open.rate}` : ''}_t${trial}`,
  );
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await design.setup(db.admin, settings.stock);
    const driven = await driver.drive(series, schema);
    const { window, counts } = driven;
    const { drift, oversold, problems }: BenchAudit = await design.audit(db.admin, settings.stock, {
      counted: counts.countedTotal,
      outcomes: counts.outcomes,
      tally: counts.tally,
    });
    return {
      trial,
      startedAt: window.startedAt,
      status: problems.length === 0 ? 'ok' : 'fail',
      throughput: Math.round(((counts.outcomes[design.counted] ?? 0) / window.seconds) * 10) / 10,
      latency: driven.latency,
      requests: driven.requests,
      outcomes: counts.outcomes,
      retries: counts.rejected,
      designRetries: counts.designRetries,
      errors: counts.errorsBySqlstate,
      lockWait: { meanWaiters: window.lockWait.meanWaiters, shareOfTime: window.lockWait.shareOfTime },
      saturation: window.saturation,
      drift,
      oversold,
      problems,
      ...(driven.open ? { open: driven.open } : {}),
      ...(Object.keys(counts.tally).length > 0 ? { tally: counts.tally } : {}),
      ...(driven.agents ?? {}),
    };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    await db.dropCaseSchema(schema);
  }
}

function failedTrial(trial: number, error: unknown): TrialEntry {
  return {
    trial,
    startedAt: new Date().toISOString(),
    status: 'fail',
    throughput: 0,
    latency: { p50: 0, p95: 0, p99: 0, max: 0 },
    requests: 0,
    outcomes: {},
    retries: 0,
    designRetries: {},
    errors: {},
    lockWait: { meanWaiters: 0, shareOfTime: 0 },
    saturation: { generatorCores: 0, serverCores: null, clientBound: false },
    drift: 0,
    oversold: 0,
    problems: [`the series could not run: ${oneLine(error)}`],
  };
}

/** Throughput is reported to a tenth, milliseconds, cores and shares to a hundredth, as in one trial. */
const tenths = (x: number) => Math.round(x * 10) / 10;
const hundredths = (x: number) => Math.round(x * 100) / 100;

const openTrials = (trials: readonly TrialEntry[]) => trials.flatMap((t) => t.open ?? []);

function summarizeSeries(series: Series, trials: TrialEntry[]): BenchEntry {
  const passed = trials.filter((t) => t.status === 'ok');
  const mid = (value: (t: TrialEntry) => number, round = hundredths) =>
    passed.length > 0 ? round(median(passed.map(value))) : 0;
  const interval = (value: (t: TrialEntry) => number, round = hundredths): Interval => {
    const { low, high } = medianInterval(passed.map(value));
    return { low: round(low), high: round(high) };
  };
  const throughput = mid((t) => t.throughput, tenths);
  const p99 = mid((t) => t.latency.p99);
  const serverCores = passed.map((t) => t.saturation.serverCores);
  const sum = (value: (t: TrialEntry) => number) => trials.reduce((acc, t) => acc + value(t), 0);
  const mean = (value: (t: TrialEntry) => number) =>
    passed.length > 0 ? hundredths(passed.reduce((acc, t) => acc + value(t), 0) / passed.length) : 0;
  return {
    strategy: series.design.id,
    clients: series.clients,
    admission: series.label,
    durability: series.durability,
    status: trials.length > 0 && passed.length === trials.length ? 'ok' : 'fail',
    throughput,
    latency: {
      p50: mid((t) => t.latency.p50),
      p95: mid((t) => t.latency.p95),
      p99,
      max: Math.max(0, ...passed.map((t) => t.latency.max)),
    },
    median: { throughput, p99 },
    ci95:
      passed.length >= 2
        ? { throughput: interval((t) => t.throughput, tenths), p99: interval((t) => t.latency.p99) }
        : null,
    saturation: {
      generatorCores: mid((t) => t.saturation.generatorCores),
      serverCores:
        serverCores.length > 0 && serverCores.every((c) => c !== null)
          ? hundredths(median(serverCores))
          : null,
      clientBound: trials.some((t) => t.saturation.clientBound),
    },
    requests: sum((t) => t.requests),
    outcomes: sumCounts(trials.map((t) => t.outcomes)),
    retries: sum((t) => t.retries),
    designRetries: sumCounts(trials.map((t) => t.designRetries)),
    errors: sumCounts(trials.map((t) => t.errors)),
    lockWait: {
      meanWaiters: mean((t) => t.lockWait.meanWaiters),
      shareOfTime: mean((t) => t.lockWait.shareOfTime),
    },
    drift: sum((t) => t.drift),
    oversold: sum((t) => t.oversold),
    problems: trials.flatMap((t) => t.problems.map((p) => `trial ${t.trial}: ${p}`)),
    ...(series.open ? { open: openSeries(series.open, openTrials(trials), openTrials(passed)) } : {}),
    ...(trials.some((t) => t.tally)
      ? { tally: sumCounts(trials.flatMap((t) => (t.tally ? [t.tally] : []))) }
      : {}),
    ...agentsOverTrials(trials),
    trials,
  };
}

/** Strategy × durability × admission × rate × clients, in that nesting: the series and the order they run in. */
function seriesPlan(settings: BenchSettings, durabilities: readonly Durability[]): Series[] {
  const opens: (OpenSettings | undefined)[] = settings.open
    ? settings.open.rates.map((rate) => {
        const { arrivals, seed, latencyLimitMs } = settings.open ?? {};
        return {
          rate,
          arrivals: arrivals ?? 'constant',
          seed: seed ?? 1,
          latencyLimitMs: latencyLimitMs ?? null,
        };
      })
    : [undefined];
  return settings.designs.flatMap((design) =>
    durabilities.flatMap((durability) =>
      (settings.admission ? [undefined, settings.admission] : [undefined]).flatMap((gate) =>
        opens.flatMap((open) =>
          settings.clients.map((clients) => ({
            design,
            clients,
            admission: gate,
            label: gate ? `${gate.limit}:${gate.maxWaiting}` : null,
            durability,
            open,
          })),
        ),
      ),
    ),
  );
}

const seriesLabel = (series: Series) =>
  `${series.design.id}${series.label ? ` [${series.label}]` : ''}${series.durability === 'off' ? ' [not durable]' : ''}${series.open ? ` @ ${series.open.rate}/s` : ''} × ${series.clients}`;

export async function runBench(settings: BenchSettings): Promise<BenchResult> {
  const durabilities = settings.durabilities ?? [DEFAULT_DURABILITY];
  // The database's own default is the first asked for; each series' sessions set theirs.
  const db = await openRunDatabase({
    databaseUrl: settings.databaseUrl,
    durability: durabilities[0],
    postgres: settings.postgres,
  });
  const uncontended: UncontendedEntry[] = [];
  const kept: string[] = [];
  const plan = seriesPlan(settings, durabilities);
  const trials: TrialEntry[][] = plan.map(() => []);
  try {
    refuseUnbenchable(settings.designs, db);
    const environment = await readEnvironment(
      db.admin,
      settings.databaseUrl ? 'url' : 'embedded',
      db.capabilities,
    );
    // Every client of a series holds its own connection (admission gates requests, not connections).
    await checkConnectionRoom(db.admin, Math.max(0, ...settings.clients));
    for (const design of settings.designs) await design.install?.(db.admin);
    const localServer = await serverIsLocal(db.admin, db.name);
    const driver = await (settings.drivers ?? localThreads)(db, { localServer, settings });
    try {
      for (const design of settings.designs) {
        const entry = await design.uncontended?.(db, settings.stock);
        if (entry) uncontended.push(entry);
      }
      const trialCount = settings.trials ?? 1;
      for (let trial = 1; trial <= trialCount; trial++) {
        for (const [i, series] of plan.entries()) {
          const slot = {
            strategy: series.design.id,
            clients: series.clients,
            admission: series.label,
            durability: series.durability,
            rate: series.open?.rate ?? null,
            trial,
          };
          await settings.beforeTrial?.(slot);
          const entry = await runTrial(db, driver, series, trial, settings).catch((error: unknown) =>
            failedTrial(trial, error),
          );
          trials[i]?.push(entry);
          settings.onTrial?.(`${seriesLabel(series)}, trial ${trial}/${trialCount}`);
          await settings.afterTrial?.(slot);
        }
      }
    } finally {
      await driver.close();
    }
    const bench = plan.map((series, i) => summarizeSeries(series, trials[i] ?? []));
    const sources = settings.designs.map((design) => sourceEntry('design', design.id, design.moduleUrl));
    const ok = bench.every((e) => e.status === 'ok');
    return { ok, contract: settings.contract, environment, sources, bench, uncontended, kept };
  } finally {
    kept.push(...(await db.close({ keep: false })));
  }
}
