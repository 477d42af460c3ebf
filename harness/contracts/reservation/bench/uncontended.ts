/** tinybench: the cost of one reservation with no contention at all (one client, one connection). */
import pg from 'pg';
import { Bench } from 'tinybench';
import type { StrategyRef } from '../../../../strategies/contract.ts';
import type { UncontendedEntry } from '../../../contract/bench-series.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';

const round = (x: number) => Math.round(x * 1000) / 1000;

export async function measureUncontended(
  db: RunDatabase,
  ref: StrategyRef,
  stock: number,
  sku: string,
): Promise<UncontendedEntry> {
  const schema = await db.createCaseSchema(`uncontended_${ref.strategy.id}`);
  const client = new pg.Client({
    connectionString: db.connectionString,
    options: `-c search_path=${schema}`,
  });
  // Idle between the benchmark's calls: a lost connection fails the next one, not the process.
  client.on('error', () => undefined);
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await ref.strategy.setup(db.admin, [{ sku, total: stock }]);
    await db.admin.query('RESET search_path');
    await client.connect();
    const ctx = {
      db: client,
      pause: async () => undefined,
      pausesAt: () => false,
      node: nodeIdentity(schema, 0, 1),
    };
    let n = 0;
    const bench = new Bench({ time: 500, warmupTime: 100 });
    bench.add('reserve', async () => {
      n += 1;
      await ref.strategy.reserve(ctx, { requestKey: `one-${n}`, user: `one-user-${n}`, sku, ttlMs: 60_000 });
    });
    await bench.run();
    const result = bench.tasks[0]?.result;
    if (!result || !('latency' in result))
      throw new Error(`tinybench did not complete for ${ref.strategy.id}`);
    return {
      strategy: ref.strategy.id,
      opsPerSecond: Math.round(1000 / result.latency.mean),
      latency: { mean: round(result.latency.mean), p99: round(result.latency.p99) },
      samples: result.latency.samples?.length ?? 0,
    };
  } finally {
    await client.end().catch(() => undefined);
    await db.dropCaseSchema(schema);
  }
}
