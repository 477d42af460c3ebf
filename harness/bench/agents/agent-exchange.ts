/**
 * How a bench and its load agents talk: through tables in the run database, which every agent reaches
 * anyway (its clients write there, and it waits there on the release lock), so an agent needs no port,
 * no address of the bench's and nothing but the URL its clients use. The bench writes the plan (how many
 * agents, its own backend's pid); an agent takes the first free slot and says who it is; per trial the
 * bench posts one task per slot and each agent writes one result; a last task tells them to go. The
 * run database is dropped at the end, and these tables with it. Liveness is read from the server too: an
 * agent's control backend gone from pg_stat_activity is an agent gone, and the bench's gone is a bench gone.
 */
import type pg from 'pg';
import { Errors } from '../../errors.ts';

export const EXCHANGE_SCHEMA = 'reservebench_agents';
/** Bumped whenever a task or a result changes shape: a bench and its agents must speak the same one. */
export const AGENT_PROTOCOL = 2;
/** Each agent's control connection; its clients are named as every bench client is. */
export const AGENT_APPLICATION_NAME = 'reservebench-agent';

const CREATE_EXCHANGE = `
  CREATE SCHEMA ${EXCHANGE_SCHEMA};
  CREATE TABLE ${EXCHANGE_SCHEMA}.plan (
    agents int NOT NULL,
    protocol int NOT NULL,
    bench_backend int NOT NULL
  );
  CREATE TABLE ${EXCHANGE_SCHEMA}.agent (
    slot int PRIMARY KEY,
    host text NOT NULL,
    pid int NOT NULL,
    cores int NOT NULL,
    threads int NOT NULL,
    backend int NOT NULL
  );
  CREATE TABLE ${EXCHANGE_SCHEMA}.task (
    id int NOT NULL,
    slot int NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (id, slot)
  );
  CREATE TABLE ${EXCHANGE_SCHEMA}.result (
    id int NOT NULL,
    slot int NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (id, slot)
  )`;

/** An agent as it joined: its slot (0-based) and what it said of itself. */
export interface JoinedAgent {
  slot: number;
  host: string;
  pid: number;
  cores: number;
  threads: number;
  /** Its control connection's backend pid: gone from pg_stat_activity, the agent is gone. */
  backend: number;
}

/** The bench's side: the tables, and the plan for `agents` agents naming this session as the bench. */
export async function openExchange(admin: pg.ClientBase, agents: number): Promise<void> {
  await admin.query(CREATE_EXCHANGE);
  await admin.query(
    `INSERT INTO ${EXCHANGE_SCHEMA}.plan (agents, protocol, bench_backend) VALUES ($1, $2, pg_backend_pid())`,
    [agents, AGENT_PROTOCOL],
  );
}

export async function joinedAgents(admin: pg.ClientBase): Promise<JoinedAgent[]> {
  const { rows } = await admin.query<JoinedAgent>(
    `SELECT slot, host, pid, cores, threads, backend FROM ${EXCHANGE_SCHEMA}.agent ORDER BY slot`,
  );
  return rows;
}

/** The agents whose control backend is no longer on the server. */
export async function agentsGone(admin: pg.ClientBase, agents: readonly JoinedAgent[]): Promise<number[]> {
  const { rows } = await admin.query<{ slot: number }>(
    `SELECT a.slot FROM ${EXCHANGE_SCHEMA}.agent a
      WHERE a.slot = ANY ($1::int[])
        AND NOT EXISTS (SELECT 1 FROM pg_stat_activity s WHERE s.pid = a.backend)`,
    [agents.map((a) => a.slot)],
  );
  return rows.map((r) => r.slot);
}

/** One task per slot, in slot order, under one id. */
export async function postTasks(admin: pg.ClientBase, id: number, bodies: readonly unknown[]): Promise<void> {
  await admin.query(
    `INSERT INTO ${EXCHANGE_SCHEMA}.task (id, slot, body)
     SELECT $1, slot - 1, body FROM unnest($2::jsonb[]) WITH ORDINALITY AS t(body, slot)`,
    [id, bodies.map((b) => JSON.stringify(b))],
  );
}

/** The results written for task `id` so far, by slot. */
export async function resultsOf(admin: pg.ClientBase, id: number): Promise<Map<number, unknown>> {
  const { rows } = await admin.query<{ slot: number; body: unknown }>(
    `SELECT slot, body FROM ${EXCHANGE_SCHEMA}.result WHERE id = $1`,
    [id],
  );
  return new Map(rows.map((r) => [r.slot, r.body]));
}

/** What the plan says, read by an agent; a database without one is no bench waiting for agents. */
async function readPlan(control: pg.ClientBase, database: string) {
  const { rows: exists } = await control.query<{ found: boolean }>(
    `SELECT to_regclass('${EXCHANGE_SCHEMA}.plan') IS NOT NULL AS found`,
  );
  const { rows } = exists[0]?.found
    ? await control.query<{ agents: number; protocol: number; bench_backend: number }>(
        `SELECT agents, protocol, bench_backend FROM ${EXCHANGE_SCHEMA}.plan`,
      )
    : { rows: [] };
  const plan = rows[0];
  if (!plan) {
    throw Errors.badInput(
      `no bench is waiting for agents in database ${database}: start \`bench --agents N --agents-external\` first and give its database to --run`,
    );
  }
  if (plan.protocol !== AGENT_PROTOCOL) {
    throw Errors.badInput(
      `this agent speaks agent protocol ${AGENT_PROTOCOL} and the bench ${plan.protocol}: run the same reservebench on every agent`,
    );
  }
  return plan;
}

/** The agent's side: takes the first free slot of the plan. */
export async function joinExchange(
  control: pg.ClientBase,
  database: string,
  me: Omit<JoinedAgent, 'slot' | 'backend'>,
): Promise<{ slot: number; agents: number; benchBackend: number }> {
  const plan = await readPlan(control, database);
  // Two agents may pick the same free slot at once: the loser's insert does nothing and it looks again.
  for (let attempt = 0; attempt < plan.agents; attempt++) {
    const { rows } = await control.query<{ slot: number }>(
      `INSERT INTO ${EXCHANGE_SCHEMA}.agent (slot, host, pid, cores, threads, backend)
       SELECT s, $2, $3, $4, $5, pg_backend_pid() FROM generate_series(0, $1 - 1) s
        WHERE NOT EXISTS (SELECT 1 FROM ${EXCHANGE_SCHEMA}.agent a WHERE a.slot = s)
        ORDER BY s LIMIT 1
       ON CONFLICT (slot) DO NOTHING RETURNING slot`,
      [plan.agents, me.host, me.pid, me.cores, me.threads],
    );
    const slot = rows[0]?.slot;
    if (slot !== undefined) return { slot, agents: plan.agents, benchBackend: plan.bench_backend };
  }
  throw Errors.badInput(`the bench in database ${database} has all its ${plan.agents} agents already`);
}

/** The agent's next task after `after`, if one is posted; `benchGone` when the bench's session ended. */
export async function nextTask(
  control: pg.ClientBase,
  slot: number,
  after: number,
  benchBackend: number,
): Promise<{ id: number; body: unknown } | 'benchGone' | undefined> {
  const { rows } = await control.query<{ id: number | null; body: unknown; bench: boolean }>(
    `SELECT t.id, t.body, EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $3) AS bench
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT id, body FROM ${EXCHANGE_SCHEMA}.task
                           WHERE slot = $1 AND id > $2 ORDER BY id LIMIT 1) t ON true`,
    [slot, after, benchBackend],
  );
  const row = rows[0];
  if (row?.id !== null && row?.id !== undefined) return { id: row.id, body: row.body };
  return row?.bench ? undefined : 'benchGone';
}

export async function writeResult(
  control: pg.ClientBase,
  id: number,
  slot: number,
  body: unknown,
): Promise<void> {
  await control.query(`INSERT INTO ${EXCHANGE_SCHEMA}.result (id, slot, body) VALUES ($1, $2, $3)`, [
    id,
    slot,
    JSON.stringify(body),
  ]);
}
