/**
 * `reservebench agent`: one load agent. It connects to the bench's run database (the URL its clients will
 * use), takes a free slot of the bench's plan, and then runs whatever the bench posts for it — one trial
 * at a time, its share of the series (agent-trial.ts) or its order of a burst (agent-burst.ts) — writing its part of each back, until the bench
 * says done. It holds nothing but connections and worker threads: the bench's session ending (Ctrl-C, a
 * crash) or its database going ends the agent too, with one line.
 */
import { availableParallelism, hostname } from 'node:os';
import { setTimeout as waitFor } from 'node:timers/promises';
import type pg from 'pg';
import { connect } from '../../database/database.ts';
import { EXIT, HarnessError, oneLine } from '../../errors.ts';
import { BenchPool } from '../bench-pool.ts';
import { type AgentBurstResult, runAgentBurst } from './agent-burst.ts';
import { AGENT_APPLICATION_NAME, joinExchange, nextTask, writeResult } from './agent-exchange.ts';
import type { AgentTrialResult } from './agent-result.ts';
import type { AgentReply, AgentTask } from './agent-task.ts';
import { runAgentTrial } from './agent-trial.ts';

/**
 * How often an idle agent looks for its next task (a poll of observed state, not an ordering), unless
 * `RESERVEBENCH_AGENT_POLL_MS` says otherwise: a slow agent must change no verdict (the bench waits for
 * every agent to read its last task before it drops the run database), and the tests hold it to that.
 */
const POLL_MS = 20;
const POLL_ENV = 'RESERVEBENCH_AGENT_POLL_MS';

/** The agent's poll from `env`: POLL_MS when unset; a whole number of ms from 1 to 60000, else bad input. */
function agentPollMs(env: NodeJS.ProcessEnv): number {
  const given = env[POLL_ENV]?.trim();
  if (!given) return POLL_MS;
  const ms = Number(given);
  if (!Number.isInteger(ms) || ms < 1 || ms > 60_000)
    throw new HarnessError(
      `${POLL_ENV} must be a whole number of ms from 1 to 60000, not '${given}'`,
      EXIT.badInput,
    );
  return ms;
}

export interface AgentOptions {
  /** The run database, as this agent's clients reach it. */
  connectionString: string;
  /** Its name, for messages. */
  database: string;
  threads: number;
  /** Where it says what it does: one line per event. */
  say: (line: string) => void;
}

/** The next task posted for `slot`, waiting while the bench is there to post one. */
async function awaitTask(
  control: pg.ClientBase,
  joined: { slot: number; benchBackend: number; pollMs: number },
  after: number,
): Promise<{ id: number; task: AgentTask }> {
  for (;;) {
    const next = await nextTask(control, joined.slot, after, joined.benchBackend);
    if (next === 'benchGone') {
      throw new HarnessError('the bench that posted the tasks went away', EXIT.expectationFailed);
    }
    if (next) return { id: next.id, task: next.body as AgentTask };
    await waitFor(joined.pollMs);
  }
}

export async function runAgent(options: AgentOptions): Promise<number> {
  const pollMs = agentPollMs(process.env);
  const control = await connect(options.connectionString, AGENT_APPLICATION_NAME);
  const pool = new BenchPool(options.threads);
  try {
    const joined = await joinExchange(control, options.database, {
      host: hostname(),
      pid: process.pid,
      cores: availableParallelism(),
      threads: pool.threads,
    });
    options.say(
      `agent ${joined.slot + 1} of ${joined.agents} joined the bench in ${options.database} (${hostname()}, ${pool.threads} threads)`,
    );
    return await runTasks(control, pool, { ...joined, pollMs }, options);
  } catch (error: unknown) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError(`lost the bench's database ${options.database}: ${oneLine(error)}`, EXIT.database);
  } finally {
    await pool.close();
    await control.end().catch(() => undefined);
  }
}

/** Every task posted for the agent's slot, in order, until the bench says done. */
async function runTasks(
  control: pg.ClientBase,
  pool: BenchPool,
  joined: { slot: number; benchBackend: number; pollMs: number },
  options: AgentOptions,
): Promise<number> {
  for (let after = 0; ; ) {
    const { id, task } = await awaitTask(control, joined, after);
    if (task.kind === 'done') return EXIT.ok;
    const part: Promise<AgentTrialResult | AgentBurstResult> =
      task.kind === 'burst'
        ? runAgentBurst(task, options.connectionString)
        : runAgentTrial(control, pool, options.connectionString, task);
    const reply: AgentReply<AgentTrialResult | AgentBurstResult> = await part.then(
      (ok) => ({ ok }),
      (error: unknown) => ({ error: oneLine(error) }),
    );
    if ('error' in reply) options.say(`${task.label}: ${reply.error}`);
    await writeResult(control, id, joined.slot, reply);
    after = id;
  }
}
