/**
 * `bench --agents N` on this host: the bench starts N `reservebench agent` processes itself, each given
 * the run database in its environment (never in argv, where `ps` shows a password). They leave when the
 * bench says done; on Ctrl-C, SIGTERM or any other end of the bench they are stopped and waited for, so
 * that no agent outlives it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import exitHook from 'async-exit-hook';

const BIN = new URL('../../../bin/reservebench.js', import.meta.url).pathname;

export interface LocalAgents {
  /** Why some agent is gone before the bench let it go (its exit and last line), or undefined. */
  trouble(): string | undefined;
  /** Waits up to `timeoutMs` for every agent to leave, then stops those still there. */
  stop(timeoutMs: number): Promise<void>;
}

interface Agent {
  child: ChildProcess;
  exited: Promise<void>;
  /** Its exit and last line once it ended. */
  ended?: string;
}

function startAgent(i: number, connectionString: string, threads: number | undefined): Agent {
  const child = spawn(process.execPath, [BIN, 'agent', ...(threads ? [`--threads=${threads}`] : [])], {
    env: { ...process.env, DATABASE_URL: connectionString },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 5));
  });
  const agent: Agent = { child, exited: Promise.resolve() };
  agent.exited = new Promise<void>((resolve) =>
    child.once('close', (code, signal) => {
      agent.ended = `local agent ${i + 1} exited (${signal ?? code})${lines.length > 0 ? `: ${lines.at(-1)}` : ''}`;
      resolve();
    }),
  );
  return agent;
}

const running = (agent: Agent) => agent.child.exitCode === null && agent.child.signalCode === null;

async function stopAll(agents: readonly Agent[], signal: NodeJS.Signals): Promise<void> {
  for (const agent of agents) if (running(agent)) agent.child.kill(signal);
  await Promise.all(agents.map((a) => a.exited));
}

export function startLocalAgents(
  count: number,
  connectionString: string,
  threads: number | undefined,
): LocalAgents {
  const agents = Array.from({ length: count }, (_, i) => startAgent(i, connectionString, threads));
  let leaving = false;
  // A signal to the bench: each agent stops at once (it holds only connections) and is waited for.
  exitHook((done) => {
    if (!done) {
      for (const agent of agents) if (running(agent)) agent.child.kill('SIGKILL');
      return;
    }
    void stopAll(agents, 'SIGTERM').finally(done);
  });
  return {
    trouble: () => (leaving ? undefined : agents.find((a) => a.ended !== undefined)?.ended),
    async stop(timeoutMs) {
      leaving = true;
      const timer = new AbortController();
      const late = new Promise<void>((resolve) => {
        const handle = setTimeout(resolve, timeoutMs);
        timer.signal.addEventListener('abort', () => clearTimeout(handle));
      });
      await Promise.race([Promise.all(agents.map((a) => a.exited)), late]);
      timer.abort();
      await stopAll(agents, 'SIGKILL');
    },
  };
}
