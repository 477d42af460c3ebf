/**
 * `serve` processes as the nodes of a service under test, and a supervisor that restarts them: the
 * --target-restart hook (scripts/serve-restart-hook.js) asks it over HTTP to restart node N, and it stops
 * that process (SIGTERM: drain, close) and starts it again on the same port. Used by test/http-target.test.ts
 * and scripts/target-example.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const BIN = new URL('../bin/reservebench.js', import.meta.url).pathname;

/** The --target-restart command that asks the supervisor (TARGET_CONTROL_URL) to restart a node. */
export const RESTART_HOOK = `${process.execPath} ${new URL('./serve-restart-hook.js', import.meta.url).pathname}`;

/** One `reservebench serve` process; `restart()` stops it (SIGTERM) and starts it again on the same port. */
export class ServeProcess {
  private child: ChildProcess | undefined;
  url = '';

  /**
   * `databaseUrl` goes to the child in DATABASE_URL, never in its argv, where `ps` would show its password
   * to every local user.
   */
  constructor(
    private readonly args: readonly string[],
    private readonly databaseUrl = '',
  ) {}

  async start(port = 0): Promise<string> {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), ...this.args], {
      env: { ...process.env, DATABASE_URL: this.databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    this.url = await new Promise<string>((resolve, reject) => {
      const lines: string[] = [];
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        lines.push(line);
        const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (found) resolve(found);
      });
      child.once('close', () => reject(new Error(`serve exited: ${lines.join('\n')}\n${stderr}`)));
    });
    return this.url;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start(Number(new URL(this.url).port));
  }

  /** The service's own gate counters: how many writes it admitted since it started. */
  async admitted(): Promise<number> {
    const counters = (await (await fetch(`${this.url}/admission`)).json()) as { admitted: number };
    return counters.admitted;
  }
}

/** The supervisor: POST /restart/{n} restarts node n (1-based) of `nodes()`. Resolves to its URL. */
export async function startSupervisor(
  nodes: () => readonly ServeProcess[],
): Promise<{ url: string; close(): Promise<void> }> {
  const control = createServer((req, res) => {
    const node = nodes()[Number(/^\/restart\/(\d+)$/.exec(req.url ?? '')?.[1]) - 1];
    if (!node || req.method !== 'POST') {
      res.writeHead(404).end('no such node');
      return;
    }
    node.restart().then(
      () => res.writeHead(200).end('restarted'),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const address = control.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () => new Promise<void>((resolve) => control.close(() => resolve())),
  };
}
