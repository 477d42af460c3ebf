/**
 * Runs a design's operation in a child process until it prints its stage line, then kills it with a real
 * SIGKILL and waits until PostgreSQL has seen its backend go (pg_stat_activity by application_name): the
 * server only notices a dead client at its next socket read, so the audit must not run before that.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as nextLook } from 'node:timers/promises';
import type { ClientBase } from 'pg';
import type { PausePoint } from '../../strategies/contract.ts';
import { CASE_POLL_MS, pollUntil } from '../database/poll-until.ts';
import type { CaseConnection } from '../driver/case-connection.ts';
import { Errors } from '../errors.ts';
import { childArguments } from './child-bundle.ts';
import {
  type CrashDesign,
  type CrashOrder,
  type CrashWork,
  DONE_PREFIX,
  STAGE_PREFIX,
} from './crash-order.ts';

export type CrashedChild =
  | { stage: string; killAndWaitGone(): Promise<{ signal: NodeJS.Signals | null }> }
  | { stage: 'done'; result: unknown };

/**
 * Crash children started by this process: one count over every case, so that two cases running side by
 * side (`run --jobs`) never give two children the name the kill waits on.
 */
let crashChildren = 0;

/** A name no other crash child of this process has, for its application_name. */
function crashChildName(): string {
  crashChildren += 1;
  return `reservebench-crash-${process.pid}-${crashChildren}`;
}

/** A crash child's order: `work` of the design, on the case's connection, under a fresh name. */
export function crashOrderOn(
  connection: CaseConnection,
  design: CrashDesign,
  work: CrashWork,
  crashAt: PausePoint,
): CrashOrder {
  return {
    ...work,
    moduleUrl: design.moduleUrl,
    importer: design.importer,
    connectionString: connection.connectionString,
    schema: connection.schema,
    ...(connection.isolation ? { isolation: connection.isolation } : {}),
    applicationName: crashChildName(),
    crashAt,
  };
}

/**
 * Starts the child on `order` and returns at its first line: its stage (then it can be killed) or its
 * result. `pollMs`: how often the kill looks whether the server has seen the backend go.
 */
export async function runUntilStage(
  order: CrashOrder,
  control: ClientBase,
  timeoutMs: number,
  pollMs = CASE_POLL_MS,
): Promise<CrashedChild> {
  // The order (with the connection string and its password) goes over the IPC channel, never in argv,
  // where `ps` would show it to every local user.
  const child = spawn(process.execPath, await childArguments(order.moduleUrl), {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.send(order);
  const { stdout, stderr: errors } = child;
  if (!stdout || !errors) throw new Error('the crash child has no output pipes');
  let stderr = '';
  errors.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  const lines = createInterface({ input: stdout });
  const timer = new AbortController();
  const firstLine = new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
  });
  const line = await Promise.race([
    firstLine,
    nextLook(timeoutMs, 'timeout' as const, { signal: timer.signal }),
  ]);
  timer.abort();
  if (line === 'timeout' || line === undefined) {
    child.kill('SIGKILL');
    throw Errors.barrierTimeout(
      `crash child (${order.operation} until ${order.crashAt}) printed no stage line${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`,
      timeoutMs / 1000,
    );
  }
  if (line.startsWith(DONE_PREFIX))
    return { stage: 'done', result: JSON.parse(line.slice(DONE_PREFIX.length)) };
  return {
    stage: line.slice(STAGE_PREFIX.length),
    async killAndWaitGone() {
      child.kill('SIGKILL');
      const signal = await exited;
      const gone = await pollUntil(
        async () => {
          const { rows } = await control.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
            [order.applicationName],
          );
          return rows[0]?.n === 0;
        },
        { timeoutMs, everyMs: pollMs },
      );
      if (!gone) throw Errors.barrierTimeout('the killed backend leaving', timeoutMs / 1000);
      return { signal };
    },
  };
}
