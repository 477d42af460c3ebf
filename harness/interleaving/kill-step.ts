/**
 * RESUME KILL: a paused operation dies with its process, as a `kill -9` would end it. Its backend is
 * terminated from the control connection, and the step waits until pg_stat_activity no longer shows it
 * (the server has rolled back its open transaction and let go of its locks). The operation never runs
 * again: what it committed before the pause stays, nothing after does, and no answer came — an unknown
 * ending. Its node restarted with the process (its memory is gone), and the session goes on on a new
 * connection, the restarted process's.
 */
import { SQLSTATE } from '../../strategies/support/sqlstate.ts';
import { pollUntil } from '../database/poll-until.ts';
import { Errors } from '../errors.ts';
import type { PausedOperation, Session } from './session.ts';
import type { StepEnvironment } from './spec-verbs.ts';
import { failure, type Outcome } from './step-outcome.ts';

export async function killPausedOperation(
  session: Session,
  paused: PausedOperation,
  env: StepEnvironment,
): Promise<Outcome> {
  const pid = session.pid;
  try {
    await env.control.query('SELECT pg_terminate_backend($1)', [pid]);
    await untilGone(pid, env);
    env.nodes.restart(paused.node);
    await session.reconnect();
  } catch (error: unknown) {
    return failure(error);
  }
  return {
    result: {
      status: 'error',
      // What the terminated backend's own connection reports (admin_shutdown).
      sqlstate: SQLSTATE.adminShutdown,
      killed: true,
      error: `killed at ${paused.point} (its backend terminated, node ${paused.node.node}/${paused.node.of} restarted): it may or may not have taken effect`,
    },
    tables: [],
  };
}

async function untilGone(pid: number, env: StepEnvironment): Promise<void> {
  const gone = await pollUntil(
    async () => !(await env.control.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount,
    { timeoutMs: env.timeoutMs, everyMs: env.pollMs },
  );
  if (!gone) throw Errors.barrierTimeout(`the terminated backend ${pid}`, env.timeoutMs / 1000);
}
