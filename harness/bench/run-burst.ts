/**
 * `reservebench bench --burst N --stock S`: the flash sale itself. Per row (strategy × durability × burst
 * size × admission), S units on fresh tables and N distinct users each sending one reserve, every one of
 * them released at the same instant (burst-release.ts) from worker threads in one or several processes;
 * then the harness's own read of the stock. Reported per row: time to sell out and to answer everyone,
 * latency from the release, outcomes, 503 retries, fairness, the server's peak connections, and the audit.
 */
import { setTimeout as waitFor } from 'node:timers/promises';
import type { StrategyRef } from '../../strategies/contract.ts';
import type { BenchDesign } from '../contract/bench-series.ts';
import { openRunDatabase, type RunDatabase } from '../database/database.ts';
import { DEFAULT_DURABILITY, type Durability } from '../database/durability.ts';
import { type Environment, readEnvironment } from '../database/environment.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import { checkConnectionRoom } from '../database/preflight.ts';
import type { LatencyPercentiles } from '../driver/latency.ts';
import { Errors, oneLine } from '../errors.ts';
import type { AdmissionSettings } from '../gate/admission.ts';
import { type SourceEntry, sourceEntry } from '../registry/source-manifest.ts';
import { type BurstAgentFigure, startAgentBurst } from './agents/agent-bursts.ts';
import { type AgentSession, type AgentsSettings, openAgentSession } from './agents/agent-session.ts';
import { agentDesign } from './agents/agent-task.ts';
import { refuseUnbenchable } from './benchable.ts';
import { peakConnections } from './burst-connections.ts';
import { auditBurst, type BurstMeasures, burstProblems, measureBurst } from './burst-measure.ts';
import { type BurstLayout, burstLayout, burstOrders } from './burst-plan.ts';
import { startBurstProcesses } from './burst-processes.ts';
import { BURST_LOCK_CLASS, holdRelease, releaseWhenAllWait } from './burst-release.ts';
import { DEFAULT_RETRY } from './burst-retry.ts';
import type { BurstRecord } from './burst-task.ts';

export const BURST_SKU = 'sku-burst-01';

export interface BurstSettings {
  strategies: StrategyRef[];
  /** The strategies' bench designs (ContractBench.design), for what refuses a design on this server. */
  designs: readonly Pick<BenchDesign, 'id' | 'refusal'>[];
  /** Burst sizes: a row each. */
  bursts: number[];
  stock: number;
  /** Without: min(N, 150) per row. */
  connections?: number | undefined;
  /** Without: one per 2,500 requests. */
  processes?: number | undefined;
  /** Worker threads per process at most. */
  threads: number;
  /** With admission: each size runs once without and once behind this gate, one gate per process. */
  admission?: AdmissionSettings | undefined;
  /** The seed of the clients' 503 backoff. */
  retrySeed: number;
  /** The most retries of one request after a 503 (default DEFAULT_RETRY's). */
  retries?: number | undefined;
  durabilities?: readonly Durability[] | undefined;
  databaseUrl?: string | undefined;
  /** The embedded server's major (`--postgres`; default 18); not with `databaseUrl`. */
  postgres?: PostgresMajor | undefined;
  timeoutMs: number;
  /** Load agents: each plays one burst process (processes = agents), request i on agent i mod N. */
  agents?: AgentsSettings | undefined;
  onRow?: (label: string) => void;
}

export interface BurstEntry {
  strategy: string;
  durability: Durability;
  admission: string | null;
  requests: number;
  stock: number;
  connections: number;
  processes: number;
  /** Worker threads over all processes, one share each. */
  threads: number;
  status: 'ok' | 'fail';
  soldOutMs: number | null;
  answeredMs: number;
  latency: LatencyPercentiles;
  outcomes: Record<string, number>;
  retries: number;
  errors: Record<string, number>;
  fairness: BurstMeasures['fairness'];
  /** Absent in reports written before it was recorded, and in a burst that could not run. */
  timeline?: BurstMeasures['timeline'];
  peakConnections: number;
  /** With load agents: each agent's part. */
  agents?: BurstAgentFigure[];
  unitsSold: number;
  oversold: number;
  drift: number;
  problems: string[];
}

export interface BurstResult {
  ok: boolean;
  environment: Environment;
  /** Every design the bursts ran, with its SHA-256 (source-manifest.ts). */
  sources: SourceEntry[];
  burst: BurstEntry[];
}

interface BurstRow {
  ref: StrategyRef;
  durability: Durability;
  admission: AdmissionSettings | undefined;
  layout: BurstLayout;
}

const admissionLabel = (gate: AdmissionSettings | undefined) =>
  gate ? `${gate.limit}:${gate.maxWaiting}` : null;

function rowPlan(settings: BurstSettings, durabilities: readonly Durability[]): BurstRow[] {
  const gates = settings.admission ? [undefined, settings.admission] : [undefined];
  return settings.strategies.flatMap((ref) =>
    durabilities.flatMap((durability) =>
      settings.bursts.flatMap((requests) =>
        gates.map((admission) => ({
          ref,
          durability,
          admission,
          layout: burstLayout(requests, {
            ...settings,
            processes: settings.agents?.agents ?? settings.processes,
            threads: settings.threads,
          }),
        })),
      ),
    ),
  );
}

const rowLabel = ({ ref, durability, admission, layout }: BurstRow) =>
  `${ref.strategy.id}${admission ? ` [${admissionLabel(admission)}]` : ''}${durability === 'off' ? ' [not durable]' : ''} burst ${layout.requests}`;

/** The records, or a one-line failure when some request is still unanswered `timeoutMs` after the release. */
async function answeredWithin(records: Promise<BurstRecord[]>, timeoutMs: number): Promise<BurstRecord[]> {
  const timer = new AbortController();
  // Aborted once the race is decided, so its rejection is never what the race sees.
  const late = waitFor(timeoutMs, 'late' as const, { signal: timer.signal }).catch(() => 'late' as const);
  try {
    const first = await Promise.race([records, late]);
    if (first === 'late') {
      throw Errors.barrierTimeout("the burst's answers", timeoutMs / 1000);
    }
    return first;
  } finally {
    timer.abort();
  }
}

interface BurstRun {
  records: BurstRecord[];
  /** On the records' clock. */
  releasedAt: number;
  peak: number;
  threads: number;
  agents?: BurstAgentFigure[];
}

/** Releases the row's processes together and collects every record, with the release instant and the peak. */
async function burst(
  db: RunDatabase,
  row: BurstRow,
  schema: string,
  key: number,
  settings: BurstSettings,
  agents: AgentSession | undefined,
): Promise<BurstRun> {
  const orders = burstOrders(row.layout, schema, {
    strategyModuleUrl: row.ref.moduleUrl,
    connection: {
      connectionString: db.connectionString,
      schema,
      settings: { synchronous_commit: row.durability },
    },
    sku: BURST_SKU,
    releaseLock: key,
    ...(row.admission ? { admission: row.admission } : {}),
    retry: { ...DEFAULT_RETRY, retries: settings.retries ?? DEFAULT_RETRY.retries, seed: settings.retrySeed },
    timeoutMs: settings.timeoutMs,
  });
  const threads = orders.reduce((n, o) => n + o.shares.length, 0);
  await holdRelease(db.admin, key);
  const children = agents
    ? startAgentBurst(agents, orders, {
        label: rowLabel(row),
        design: agentDesign(row.ref.strategy.id, row.ref.moduleUrl),
        schema,
        durability: row.durability,
        timeoutMs: settings.timeoutMs,
      })
    : startBurstProcesses(orders);
  children.records.catch(() => undefined);
  try {
    const release = await releaseWhenAllWait(db.admin, key, threads, {
      timeoutMs: settings.timeoutMs,
      ended: children.ended,
    }).catch(async (error: unknown) => {
      await db.admin
        .query('SELECT pg_advisory_unlock($1, $2)', [BURST_LOCK_CLASS, key])
        .catch(() => undefined);
      const why = 'why' in children ? children.why() : undefined;
      throw why ? new Error(why) : error;
    });
    const answered = answeredWithin(children.records, settings.timeoutMs);
    const peak = await peakConnections(db.admin, answered);
    const records = await answered;
    // Agents' records are on the server's clock (agent-burst.ts); child processes' on this host's.
    if (!('figures' in children)) return { records, releasedAt: release.at, peak, threads };
    return { records, releasedAt: release.serverMs, peak, threads, agents: await children.figures };
  } finally {
    await children.stop();
  }
}

async function runRow(
  db: RunDatabase,
  row: BurstRow,
  key: number,
  settings: BurstSettings,
  agents: AgentSession | undefined,
): Promise<BurstEntry> {
  const { ref, layout } = row;
  const schema = await db.createCaseSchema(
    `burst_${ref.strategy.id}_${layout.requests}${row.admission ? '_gated' : ''}${row.durability === 'off' ? '_async' : ''}`,
  );
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await ref.strategy.setup(db.admin, [{ sku: BURST_SKU, total: settings.stock }]);
    const { records, releasedAt, peak, threads, ...parts } = await burst(
      db,
      row,
      schema,
      key,
      settings,
      agents,
    );
    const measures = measureBurst(records, releasedAt, settings.stock);
    const remaining = await ref.strategy.remaining(db.admin, BURST_SKU);
    const audit = auditBurst(settings.stock, remaining, measures.outcomes.HELD ?? 0);
    const problems = burstProblems(layout.requests, settings.stock, measures, audit);
    const { early: _early, answered: _answered, ...shown } = measures;
    return {
      ...rowHead(row, settings.stock, threads),
      status: problems.length === 0 ? 'ok' : 'fail',
      ...shown,
      peakConnections: peak,
      ...parts,
      ...audit,
      problems,
    };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    await db.dropCaseSchema(schema);
  }
}

function rowHead(row: BurstRow, stock: number, threads: number) {
  return {
    strategy: row.ref.strategy.id,
    durability: row.durability,
    admission: admissionLabel(row.admission),
    requests: row.layout.requests,
    stock,
    connections: row.layout.connections,
    processes: row.layout.processes,
    threads,
  };
}

function failedRow(row: BurstRow, stock: number, error: unknown): BurstEntry {
  return {
    ...rowHead(row, stock, 0),
    status: 'fail',
    soldOutMs: null,
    answeredMs: 0,
    latency: { p50: 0, p95: 0, p99: 0, max: 0 },
    outcomes: {},
    retries: 0,
    errors: {},
    fairness: { firstArrivals: Math.min(stock, row.layout.requests), held: 0 },
    peakConnections: 0,
    unitsSold: 0,
    oversold: 0,
    drift: 0,
    problems: [`the burst could not run: ${oneLine(error)}`],
  };
}

/** Every row in turn, on child processes of this host or on the load agents. */
async function runRows(db: RunDatabase, plan: readonly BurstRow[], settings: BurstSettings) {
  const connections = Math.max(0, ...plan.map((r) => r.layout.connections));
  const { agents: agentSettings, timeoutMs } = settings;
  const agents = agentSettings && (await openAgentSession(db, agentSettings, { connections, timeoutMs }));
  if (!agents) await checkConnectionRoom(db.admin, connections, 'give fewer --clients');
  let failed = false;
  try {
    const entries: BurstEntry[] = [];
    for (const [i, row] of plan.entries()) {
      const entry = await runRow(db, row, i + 1, settings, agents).catch((error: unknown) => {
        failed = true;
        return failedRow(row, settings.stock, error);
      });
      entries.push(entry);
      settings.onRow?.(rowLabel(row));
    }
    return entries;
  } finally {
    // After a burst that could not run an agent may still be in it: the bench's own are stopped now.
    await agents?.close(failed ? 0 : timeoutMs);
  }
}

export async function runBursts(settings: BurstSettings): Promise<BurstResult> {
  const durabilities = settings.durabilities ?? [DEFAULT_DURABILITY];
  const db = await openRunDatabase({
    databaseUrl: settings.databaseUrl,
    durability: durabilities[0],
    postgres: settings.postgres,
  });
  try {
    refuseUnbenchable(settings.designs, db);
    const environment = await readEnvironment(
      db.admin,
      settings.databaseUrl ? 'url' : 'embedded',
      db.capabilities,
    );
    const plan = rowPlan(settings, durabilities);
    const entries = await runRows(db, plan, settings);
    const sources = settings.strategies.map((ref) => sourceEntry('design', ref.strategy.id, ref.moduleUrl));
    const ok = entries.length > 0 && entries.every((e) => e.status === 'ok');
    return { ok, environment, sources, burst: entries };
  } finally {
    await db.close({ keep: false });
  }
}
