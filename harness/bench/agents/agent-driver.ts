/**
 * The bench's side of load agents: a TrialDriver whose clients run in agent processes instead of this
 * one's threads. Per trial it splits the series (agent-plan.ts), posts each agent its share, holds the
 * release lock until pg_locks shows every agent waiting on it, lets go — all agents start at once —, then
 * samples the server through the warm-up and measured window as the bench always does, and adds up what
 * the agents send back: histograms merged, counts summed, each agent's CPU and dropped arrivals kept
 * beside them (the trial's generator CPU is its busiest agent's).
 */
import { setTimeout as waitFor } from 'node:timers/promises';
import { mean } from 'simple-statistics';
import { BENCH_SKU } from '../bench-design.ts';
import { CLIENT_APPLICATION_PREFIX } from '../bench-task.ts';
import { BURST_LOCK_CLASS, holdRelease, releaseWhenAllWait } from '../burst-release.ts';
import { type LockWait, sampleLockWaits } from '../lock-sampler.ts';
import { openTrialOf } from '../open-model.ts';
import {
  type BenchSettings,
  type DrivenTrial,
  type Series,
  sumTrialCounts,
  type TrialDriver,
  type TrialDrivers,
} from '../run-bench.ts';
import { meterProcesses, seriesServerPids } from '../saturation.ts';
import { agentsGone } from './agent-exchange.ts';
import { type AgentFigure, isClientBound } from './agent-figures.ts';
import { planAgentShares } from './agent-plan.ts';
import { type AgentTrialResult, latencyOf, mergedLatencies, sumOpenCounts } from './agent-result.ts';
import {
  type AgentSession,
  type AgentsSettings,
  endAgentSessions,
  openAgentSession,
} from './agent-session.ts';
import { type AgentTrialTask, agentDesign } from './agent-task.ts';

interface Agents extends AgentSession {
  localServer: boolean;
  settings: BenchSettings;
}

function trialTask(
  series: Series,
  threads: AgentTrialTask['threads'],
  key: number,
  schema: string,
  settings: BenchSettings,
): AgentTrialTask {
  return {
    kind: 'trial',
    label: `${series.design.id} × ${series.clients}${series.open ? ` @ ${series.open.rate}/s` : ''}`,
    releaseKey: key,
    contract: series.design.contract,
    design: agentDesign(series.design.id, series.design.moduleUrl),
    schema,
    durability: series.durability,
    sku: BENCH_SKU,
    threads,
    ...(series.open ? { open: series.open } : {}),
    warmupMs: settings.warmupMs,
    durationMs: settings.durationMs,
    timeoutMs: settings.timeoutMs,
  };
}

/** How often the bench looks for a gone agent while the agents measure. */
const WATCH_MS = 250;

/**
 * Watches, while the agents run their window, for one of them gone (its process ended, its session
 * gone from the server): the bench then stops waiting for a window whose figures can no longer add up.
 */
function watchAgents({ db, joined, local }: Agents): { gone: () => boolean; stop: () => Promise<void> } {
  let gone = false;
  let watching = true;
  const loop = (async () => {
    while (watching && !gone) {
      gone = local?.trouble() !== undefined || (await agentsGone(db.admin, joined)).length > 0;
      await waitFor(WATCH_MS);
    }
  })().catch(() => undefined);
  return {
    gone: () => gone,
    stop: async () => {
      watching = false;
      await loop;
    },
  };
}

/** The bench's view of the window: the warm-up waited out, then lock waits sampled and the server metered. */
async function benchWindow(
  agents: Agents,
): Promise<{ startedAt: string; lockWait: LockWait; serverCores: number | null }> {
  const { db, localServer, settings } = agents;
  // Every agent's clients connected before it waited on the lock, so their backends are there now.
  const serverPids = localServer ? await seriesServerPids(db.admin, CLIENT_APPLICATION_PREFIX) : undefined;
  const watch = watchAgents(agents);
  try {
    await waitFor(settings.warmupMs);
    const startedAt = new Date().toISOString();
    const began = performance.now();
    const endServer = serverPids && meterProcesses(serverPids);
    const lockWait = await sampleLockWaits(
      db.admin,
      () => watch.gone() || performance.now() - began >= settings.durationMs,
    );
    return { startedAt, lockWait, serverCores: endServer ? endServer() : null };
  } finally {
    await watch.stop();
  }
}

const hundredths = (x: number) => Math.round(x * 100) / 100;

function agentFigure(result: AgentTrialResult, slot: number): AgentFigure {
  return {
    agent: slot + 1,
    host: result.host,
    pid: result.pid,
    cores: result.cores,
    threads: result.threads,
    clients: result.clients,
    requests: result.latency.count,
    outcomes: result.counts.outcomes,
    dropped: result.open?.counts.dropped ?? 0,
    seconds: Math.round(result.seconds * 1000) / 1000,
    generatorCores: result.generatorCores,
    clientBound: isClientBound(result.generatorCores),
    latency: latencyOf(result.latency),
    histogram: result.latency.histogram,
  };
}

/** The agents' parts as one trial: histograms added, counts summed, each agent's own figures beside. */
export function drivenByAgents(
  series: Series,
  window: { startedAt: string; lockWait: LockWait; serverCores: number | null },
  results: readonly AgentTrialResult[],
): DrivenTrial {
  const merged = mergedLatencies(results.map((r) => r.latency));
  // Each agent measured its own window on its own clock, all of them opened by the one release.
  const seconds = mean(results.map((r) => r.seconds));
  const figures = results.map(agentFigure);
  const service = results.flatMap((r) => (r.open ? [r.open.service] : []));
  return {
    window: {
      startedAt: window.startedAt,
      seconds,
      lockWait: window.lockWait,
      saturation: {
        generatorCores: hundredths(Math.max(...figures.map((f) => f.generatorCores))),
        serverCores: window.serverCores,
        clientBound: figures.some((f) => f.clientBound),
      },
    },
    counts: sumTrialCounts(results.map((r) => r.counts)),
    latency: merged.latency,
    requests: merged.count,
    ...(series.open
      ? { open: openTrialOf(series.open, sumOpenCounts(results), mergedLatencies(service).latency, seconds) }
      : {}),
    agents: { agents: figures, latencyHistogram: merged.histogram },
  };
}

/** One trial: the shares posted, the release, the window, the agents' parts added up. */
async function driveTrial(agents: Agents, series: Series, schema: string, key: number): Promise<DrivenTrial> {
  const { db, joined, settings } = agents;
  const shares = planAgentShares(
    series.design.contract,
    series.clients,
    schema,
    joined.map((a) => a.threads),
  );
  // Each trial waits on a release lock of its own.
  await holdRelease(db.admin, key);
  let held = true;
  try {
    const id = await agents.post(
      shares.map((share) => trialTask(series, share.threads, key, schema, settings)),
    );
    let why: string | undefined;
    await releaseWhenAllWait(db.admin, key, joined.length, {
      timeoutMs: settings.timeoutMs,
      ended: async () => {
        why = await agents.trouble(id);
        return why !== undefined;
      },
    }).catch((error: unknown) => {
      throw why ? new Error(why) : error;
    });
    held = false;
    const window = await benchWindow(agents);
    return drivenByAgents(series, window, await agents.results(id, settings.timeoutMs, 'after the window'));
  } finally {
    if (held) {
      await db.admin
        .query('SELECT pg_advisory_unlock($1, $2)', [BURST_LOCK_CLASS, key])
        .catch(() => undefined);
    }
  }
}

/** Load agents as the bench's trial driver: the exchange opened, the agents started or awaited. */
export function agentDrivers(options: AgentsSettings): TrialDrivers {
  return async (db, { localServer, settings }) => {
    const connections = Math.max(0, ...settings.clients);
    const session = await openAgentSession(db, options, { connections, timeoutMs: settings.timeoutMs });
    const agents: Agents = { ...session, localServer, settings };
    let key = 0;
    let failed = false;
    return {
      drive: (series, schema) =>
        driveTrial(agents, series, schema, ++key).catch(async (error: unknown) => {
          failed = true;
          // An agent still in its window would keep writing into the tables the bench now drops.
          await endAgentSessions(db, CLIENT_APPLICATION_PREFIX);
          throw error;
        }),
      // After a failed trial an agent may still be in its window: the bench's own are stopped now.
      close: () => session.close(failed ? 0 : settings.timeoutMs),
    } satisfies TrialDriver;
  };
}
