/**
 * A shared gate's permits in Redis, through a kept client library: redis-semaphore's Semaphore (a sorted
 * set of holders scored by their acquire time, expired after the lease, refreshed while held) on ioredis.
 * Its lease runs on each instance's own clock (the score is the client's Date.now()), so instances whose
 * clocks differ by more than the lease can over-admit — redis-semaphore's own caveat. Commands are never
 * queued while Redis is unreachable (`enableOfflineQueue: false`): an attempt then fails at once, and the
 * gate answers as its failure mode says.
 */
import { Redis } from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import { redact } from '../database/redact.ts';
import { newHolder, type Permit, type PermitStore } from './permit-store.ts';

interface RedisPermit extends Permit {
  semaphore: Semaphore;
}

export class RedisPermits implements PermitStore {
  readonly description: string;
  private lost = 0;

  private constructor(
    private readonly client: Redis,
    private readonly key: string,
    private readonly limit: number,
    private readonly leaseMs: number,
    url: string,
  ) {
    this.description = `redis (${redact(url)}, key ${key}, lease ${leaseMs} ms)`;
  }

  static async open(url: string, gate: string, limit: number, leaseMs: number): Promise<RedisPermits> {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      // Reconnects for as long as the service runs, at most a second apart.
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
    } catch (error: unknown) {
      client.disconnect();
      throw error;
    }
    return new RedisPermits(client, `reservebench:gate:${gate}`, limit, leaseMs, url);
  }

  async tryAcquire(): Promise<Permit | undefined> {
    const semaphore = new Semaphore(this.client, this.key, this.limit, {
      identifier: newHolder(),
      lockTimeout: this.leaseMs,
      acquireAttemptsLimit: 1,
      // The gate paces its own retries (store-gate.ts): no pause inside one attempt.
      retryInterval: 0,
      refreshInterval: Math.max(1, Math.floor(this.leaseMs / 3)),
      onLockLost: () => {
        this.lost += 1;
      },
    });
    if (!(await semaphore.tryAcquire())) return undefined;
    const permit: RedisPermit = { holder: semaphore.identifier, semaphore };
    return permit;
  }

  async release(permit: Permit): Promise<void> {
    await (permit as RedisPermit).semaphore.release();
  }

  leasesLost(): number {
    return this.lost;
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
