/**
 * A throwaway `redis-server` (Debian's package) on a free loopback port, for the tests of the Redis gate;
 * `REDIS_SERVER` is undefined where the binary is not installed, and those tests are skipped, saying so.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as nextLook } from 'node:timers/promises';
import { Redis } from 'ioredis';

function findRedisServer(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const REDIS_SERVER = findRedisServer();
export const NO_REDIS = 'skipped: no redis-server on PATH (apt-get install redis-server)';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

export interface RedisProcess {
  url: string;
  child: ChildProcess;
  /** Kills it at once (SIGKILL): the store going away. */
  kill(): Promise<void>;
}

/** Starts one with no persistence, and resolves once it answers PING (its own state, not a sleep). */
export async function startRedis(): Promise<RedisProcess> {
  if (!REDIS_SERVER) throw new Error(NO_REDIS);
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = performance.now() + 20_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    const up = await client
      .connect()
      .then(() => client.ping())
      .then(
        () => true,
        () => false,
      );
    client.disconnect();
    if (up) break;
    if (performance.now() > deadline) throw new Error('redis-server did not answer PING in 20 s');
    await nextLook(20);
  }
  return {
    url,
    child,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
