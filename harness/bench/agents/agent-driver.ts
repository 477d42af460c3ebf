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
import { type RunDatabase, redact } from '../../database/database.ts';
import { checkConnectionRoom } from '../../database/preflight.ts';
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
import {
  agentsGone,
  type JoinedAgent,
  joinedAgents,
  openExchange,
  postTasks,
  resultsOf,
} from './agent-exchange.ts';
import { type AgentFigure, isClientBound } from './agent-figures.ts';
import { planAgentShares } from './agent-plan.ts';
import { type AgentTrialResult, latencyOf, mergedLatencies, sumOpenCounts } from './agent-result.ts';
import { type AgentReply, type AgentTrialTask, agentDesign } from './agent-task.ts';
import { type LocalAgents, startLocalAgents } from './local-agents.ts';

/** How often the bench looks at the exchange while it waits (observed state, not an ordering). */
const LOOK_MS = 20;

export interface AgentsSettings {
  agents: number;
  /** Started by the user (ssh, a container, a CI job) rather than by the bench. */
  external: boolean;
  /** Worker threads of each agent the bench starts (default: one per core). */
  threads?: number | undefined;
  /** Where the bench says what the user must do or know (stderr). */
  say: (line: string) => void;
}

interface Agents {
  db: RunDatabase;
  joined: JoinedAgent[];
  local: LocalAgents | undefined;
  localServer: boolean;
  settings: BenchSettings;
}

/** Why the trial `id` cannot go on: an agent gone, or one that reported an error instead of its part. */
async function trouble({ db, joined, local }: Agents, id: number): Promise<string | undefined> {
  const exited = local?.trouble();
  if (exited) return exited;
  const gone = await agentsGone(db.admin, joined);
  const agent = joined.find((a) => a.slot === gone[0]);
  if (agent) return `agent ${agent.slot + 1} (${agent.host}, pid ${agent.pid}) went away`;
  for (const [slot, body] of await resultsOf(db.admin, id)) {
    const reply = body as AgentReply<AgentTrialResult>;
    if ('error' in reply) return `agent ${slot + 1}: ${reply.error}`;
  }
  return undefined;
}

/** Until every agent joined the plan (each told to the user when they start the agents themselves). */
async function awaitAgents(agents: Omit<Agents, 'joined'>, count: number, say?: (line: string) => void) {
  const deadline = performance.now() + agents.settings.timeoutMs;
  let seen = 0;
  for (;;) {
    const joined = await joinedAgents(agents.db.admin);
    for (const a of joined.slice(seen))
      say?.(`agent ${a.slot + 1} of ${count} joined: ${a.host}, pid ${a.pid}`);
    seen = joined.length;
    if (joined.length >= count) return joined;
    const exited = agents.local?.trouble();
    if (exited) throw new Error(exited);
    if (performance.now() > deadline) {
      throw new Error(
        `${joined.length} of ${count} agents joined within ${agents.settings.timeoutMs / 1000} s (--timeout-ms)`,
      );
    }
    await waitFor(LOOK_MS);
  }
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

/** Every agent's part of trial `id`, in slot order, once all are written. */
async function awaitResults(agents: Agents, id: number): Promise<AgentTrialResult[]> {
  const { db, joined, settings } = agents;
  const deadline = performance.now() + settings.timeoutMs;
  for (;;) {
    const results = await resultsOf(db.admin, id);
    const why = await trouble(agents, id);
    if (why) throw new Error(why);
    if (results.size >= joined.length) {
      return joined.map((a) => (results.get(a.slot) as { ok: AgentTrialResult }).ok);
    }
    if (performance.now() > deadline) {
      throw new Error(
        `${results.size} of ${joined.length} agents reported within ${settings.timeoutMs / 1000} s after the window`,
      );
    }
    await waitFor(LOOK_MS);
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
async function driveTrial(agents: Agents, series: Series, schema: string, id: number): Promise<DrivenTrial> {
  const { db, joined, settings } = agents;
  const shares = planAgentShares(
    series.design.contract,
    series.clients,
    schema,
    joined.map((a) => a.threads),
  );
  // The release lock's second key is the task's id: each trial waits on a lock of its own.
  await holdRelease(db.admin, id);
  let held = true;
  try {
    await postTasks(
      db.admin,
      id,
      shares.map((share) => trialTask(series, share.threads, id, schema, settings)),
    );
    let why: string | undefined;
    await releaseWhenAllWait(db.admin, id, joined.length, {
      timeoutMs: settings.timeoutMs,
      ended: async () => {
        why = await trouble(agents, id);
        return why !== undefined;
      },
    }).catch((error: unknown) => {
      throw why ? new Error(why) : error;
    });
    held = false;
    const window = await benchWindow(agents);
    return drivenByAgents(series, window, await awaitResults(agents, id));
  } finally {
    if (held) {
      await db.admin
        .query('SELECT pg_advisory_unlock($1, $2)', [BURST_LOCK_CLASS, id])
        .catch(() => undefined);
    }
  }
}

/** The line that tells the user how to start the agents the bench waits for. */
function externalLine(db: RunDatabase, agents: number): string {
  return `waiting for ${agents} agent(s): start each, on any host that reaches the server, with  reservebench agent --run ${db.name}  and DATABASE_URL (or --database-url) naming the server as the bench's does: ${redact(db.connectionString)}`;
}

/** Load agents as the bench's trial driver: the exchange opened, the agents started or awaited. */
export function agentDrivers(options: AgentsSettings): TrialDrivers {
  return async (db, { localServer, settings }) => {
    // Each agent holds a control connection beside its clients.
    await checkConnectionRoom(
      db.admin,
      Math.max(0, ...settings.clients) + options.agents,
      'give fewer --clients or --agents',
    );
    await openExchange(db.admin, options.agents);
    const local = options.external
      ? undefined
      : startLocalAgents(options.agents, db.connectionString, options.threads);
    const base = { db, local, localServer, settings };
    try {
      if (options.external) options.say(externalLine(db, options.agents));
      const joined = await awaitAgents(base, options.agents, options.external ? options.say : undefined);
      const agents: Agents = { ...base, joined };
      let id = 0;
      let failed = false;
      return {
        drive: (series, schema) =>
          driveTrial(agents, series, schema, ++id).catch((error: unknown) => {
            failed = true;
            throw error;
          }),
        async close() {
          try {
            await postTasks(
              db.admin,
              ++id,
              joined.map(() => ({ kind: 'done' })),
            );
          } finally {
            // After a failed trial an agent may still be in its window: the bench's own are stopped now.
            await local?.stop(failed ? 0 : settings.timeoutMs);
          }
        },
      } satisfies TrialDriver;
    } catch (error: unknown) {
      await local?.stop(0);
      throw error;
    }
  };
}
