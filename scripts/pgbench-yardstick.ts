/**
 * The yardstick: the same hot-row reservation transaction run by `pgbench` (C, one connection per client)
 * and by the suite's driver (worker threads, node-postgres), on the same server, at the same client
 * counts, in one run. The ratio suite/pgbench says how much of the measured cost is the driver's.
 *
 *   npm run yardstick -- [--clients 1,4,16,64] [--duration-ms 5000] [--database-url URL]
 *
 * pgbench comes from PATH or /usr/lib/postgresql/<version>/bin (override with PGBENCH); without it the
 * script says so in one line and exits 0.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { BENCH_SKU, runBench } from '../harness/bench/run-bench.ts';
import { openRunDatabase } from '../harness/database/database.ts';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { loadStrategy } from '../harness/registry/registry.ts';

const run = promisify(execFile);

function findPgbench(): string | undefined {
  if (process.env.PGBENCH) return process.env.PGBENCH;
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(dir, 'pgbench'))) return join(dir, 'pgbench');
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort().reverse()
    : [];
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin/pgbench`).find(existsSync);
}

// The statements hot-row's reserve sends (strategies/hot-row.ts, reservation-table.ts), as one transaction.
// Keys come from a 64-bit random number, so no two transactions collide on the key or user indexes.
const TRANSACTION = `\\set k random(1, 9000000000000000000)
BEGIN;
SAVEPOINT claim;
INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
  VALUES ('pgb-' || :k, 'pgb-user-' || :k, '${BENCH_SKU}', 'HELD', now() + make_interval(secs => 60000 / 1000.0))
  ON CONFLICT (request_key) DO NOTHING RETURNING reservation_id;
UPDATE sku_stock SET available = available - 1 WHERE sku = '${BENCH_SKU}' AND available > 0;
COMMIT;
`;

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1,4,16,64' },
    'duration-ms': { type: 'string', default: '5000' },
    'database-url': { type: 'string' },
  },
});
const clients = (values.clients ?? '').split(',').map(Number);
const durationMs = Number(values['duration-ms']);
if (
  clients.some((c) => !Number.isInteger(c) || c < 1 || c > 250) ||
  !Number.isInteger(durationMs) ||
  durationMs < 1000
) {
  process.stderr.write('yardstick: --clients takes whole numbers 1–250, --duration-ms at least 1000\n');
  process.exit(2);
}
const pgbench = findPgbench();
if (!pgbench) {
  process.stdout.write(
    'yardstick: pgbench not found (PATH, /usr/lib/postgresql/*/bin or PGBENCH): skipped\n',
  );
  process.exit(0);
}

const server = values['database-url'] ? undefined : await startEmbeddedServer();
const serverUrl = values['database-url'] ?? server?.adminUrl ?? '';
const hotRow = await loadStrategy('hot-row');
const rows: { clients: number; pgbench: number; suite: number }[] = [];
try {
  const db = await openRunDatabase({ databaseUrl: serverUrl });
  const scriptDir = mkdtempSync(join(tmpdir(), 'reservebench-pgbench-'));
  const script = join(scriptDir, 'reserve.sql');
  writeFileSync(script, TRANSACTION);
  const pgbenchTps = new Map<number, number>();
  try {
    for (const n of clients) {
      const schema = await db.createCaseSchema(`pgbench_${n}`);
      await db.admin.query(`SET search_path TO ${schema}`);
      await hotRow.strategy.setup(db.admin, [{ sku: BENCH_SKU, total: 2_000_000_000 }]);
      await db.admin.query('RESET search_path');
      const { stdout } = await run(
        pgbench,
        [
          '-n',
          '-M',
          'extended',
          '-c',
          String(n),
          '-j',
          String(Math.min(n, 2)),
          '-T',
          String(durationMs / 1000),
          '-f',
          script,
          db.connectionString,
        ],
        { env: { ...process.env, PGOPTIONS: `-c search_path=${schema}` } },
      );
      const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
      if (!tps) throw new Error(`no tps in pgbench output: ${stdout}`);
      pgbenchTps.set(n, Number(tps));
      await db.dropCaseSchema(schema);
    }
  } finally {
    rmSync(scriptDir, { recursive: true, force: true });
    await db.close({ keep: false });
  }
  const suite = await runBench({
    strategies: [hotRow],
    clients,
    warmupMs: 1_000,
    durationMs,
    stock: 2_000_000_000,
    timeoutMs: 60_000,
    databaseUrl: serverUrl,
  });
  for (const entry of suite.bench) {
    rows.push({
      clients: entry.clients,
      pgbench: pgbenchTps.get(entry.clients) ?? 0,
      suite: entry.throughput,
    });
  }
} finally {
  await server?.stop({ keepData: false });
}
process.stdout.write('clients  pgbench tx/s  suite tx/s  suite/pgbench\n');
for (const r of rows) {
  const ratio = r.pgbench > 0 ? (r.suite / r.pgbench).toFixed(2) : '-';
  process.stdout.write(
    `${String(r.clients).padStart(7)}  ${r.pgbench.toFixed(1).padStart(12)}  ${r.suite.toFixed(1).padStart(10)}  ${ratio.padStart(13)}\n`,
  );
}
process.exit(0);
