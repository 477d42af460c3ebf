/**
 * The bench's hold on its load agents, whatever it posts them (trials of a series, or a burst's orders):
 * the exchange opened, the agents started here or awaited from the user, each task's parts collected,
 * trouble (an agent gone, one that answered with an error) named, and the agents sent away at the end.
 */
import type { RunDatabase } from '../../database/database.ts';
import { pollUntil } from '../../database/poll-until.ts';
import { checkConnectionRoom } from '../../database/preflight.ts';
import { redact } from '../../database/redact.ts';
import {
  agentsGone,
  type JoinedAgent,
  joinedAgents,
  openExchange,
  postTasks,
  resultsOf,
} from './agent-exchange.ts';
import type { AgentReply, AgentTask } from './agent-task.ts';
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

export interface AgentSession {
  db: RunDatabase;
  joined: JoinedAgent[];
  local: LocalAgents | undefined;
  /** Posts one task per agent, in slot order; returns the task's id. */
  post(tasks: readonly AgentTask[]): Promise<number>;
  /** Why task `id` cannot go on: an agent gone, or one that reported an error instead of its part. */
  trouble(id: number): Promise<string | undefined>;
  /** Every agent's part of task `id`, in slot order, once all are written (within `timeoutMs`). */
  results<R>(id: number, timeoutMs: number, after: string): Promise<R[]>;
  /** Sends the agents away; those the bench started are waited for `timeoutMs`, then stopped. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Ends the sessions whose application name starts with `prefix` in the run database (the bench's own),
 * once a trial or a burst failed: an agent still in it would keep writing into tables the bench drops
 * next, and that drop could deadlock with it and hide why the run failed.
 */
export async function endAgentSessions(db: RunDatabase, prefix: string): Promise<void> {
  await db.admin
    .query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE $1 AND pid <> pg_backend_pid()`,
      [`${prefix}%`],
    )
    .catch(() => undefined);
}

/** Until every agent joined the plan (each told to the user when they start the agents themselves). */
async function awaitAgents(
  db: RunDatabase,
  local: LocalAgents | undefined,
  count: number,
  timeoutMs: number,
  say?: (line: string) => void,
): Promise<JoinedAgent[]> {
  let seen = 0;
  const look = async (): Promise<JoinedAgent[] | undefined> => {
    const joined = await joinedAgents(db.admin);
    for (const a of joined.slice(seen))
      say?.(`agent ${a.slot + 1} of ${count} joined: ${a.host}, pid ${a.pid}`);
    seen = joined.length;
    if (joined.length >= count) return joined;
    const exited = local?.trouble();
    if (exited) throw new Error(exited);
    return undefined;
  };
  const joined = await pollUntil(look, { timeoutMs, everyMs: LOOK_MS });
  if (!joined)
    throw new Error(`${seen} of ${count} agents joined within ${timeoutMs / 1000} s (--timeout-ms)`);
  return joined;
}

/** The line that tells the user how to start the agents the bench waits for. */
function externalLine(db: RunDatabase, agents: number): string {
  return `waiting for ${agents} agent(s): start each, on any host that reaches the server, with  reservebench agent --run ${db.name}  and DATABASE_URL (or --database-url) naming the server as the bench's does: ${redact(db.connectionString)}`;
}

function session(db: RunDatabase, joined: JoinedAgent[], local: LocalAgents | undefined): AgentSession {
  let id = 0;
  const trouble = async (task: number): Promise<string | undefined> => {
    const exited = local?.trouble();
    if (exited) return exited;
    const gone = await agentsGone(db.admin, joined);
    const agent = joined.find((a) => a.slot === gone[0]);
    if (agent) return `agent ${agent.slot + 1} (${agent.host}, pid ${agent.pid}) went away`;
    for (const [slot, body] of await resultsOf(db.admin, task)) {
      const reply = body as AgentReply<unknown>;
      if ('error' in reply) return `agent ${slot + 1}: ${reply.error}`;
    }
    return undefined;
  };
  return {
    db,
    joined,
    local,
    trouble,
    async post(tasks) {
      await postTasks(db.admin, ++id, tasks);
      return id;
    },
    async results<R>(task: number, timeoutMs: number, after: string): Promise<R[]> {
      let reported = 0;
      const look = async (): Promise<R[] | undefined> => {
        const results = await resultsOf(db.admin, task);
        const why = await trouble(task);
        if (why) throw new Error(why);
        reported = results.size;
        return results.size >= joined.length
          ? joined.map((a) => (results.get(a.slot) as { ok: R }).ok)
          : undefined;
      };
      const parts = await pollUntil(look, { timeoutMs, everyMs: LOOK_MS });
      if (!parts)
        throw new Error(
          `${reported} of ${joined.length} agents reported within ${timeoutMs / 1000} s ${after}`,
        );
      return parts;
    },
    async close(timeoutMs) {
      try {
        await postTasks(
          db.admin,
          ++id,
          joined.map(() => ({ kind: 'done' })),
        );
        // The run database is dropped next: an agent that has not yet read `done` would take that for its
        // bench's database lost. Each leaves once it has read it (its control backend gone from the server);
        // one still there after `timeoutMs` is stopped below.
        const allGone = async () => (await agentsGone(db.admin, joined)).length >= joined.length;
        await pollUntil(allGone, { timeoutMs, everyMs: LOOK_MS });
      } finally {
        await local?.stop(timeoutMs);
      }
    },
  };
}

/**
 * The agents for a run whose largest task needs `connections` of the server's: the room checked (each
 * agent holds a control connection beside its clients), the exchange opened, the agents started or
 * awaited.
 */
export async function openAgentSession(
  db: RunDatabase,
  options: AgentsSettings,
  { connections, timeoutMs }: { connections: number; timeoutMs: number },
): Promise<AgentSession> {
  await checkConnectionRoom(db.admin, connections + options.agents, 'give fewer --clients or --agents');
  await openExchange(db.admin, options.agents);
  const local = options.external
    ? undefined
    : startLocalAgents(options.agents, db.connectionString, options.threads);
  try {
    if (options.external) options.say(externalLine(db, options.agents));
    const say = options.external ? options.say : undefined;
    return session(db, await awaitAgents(db, local, options.agents, timeoutMs, say), local);
  } catch (error: unknown) {
    await local?.stop(0);
    throw error;
  }
}
