/**
 * The yardstick: the same hot-row reservation transaction run by `pgbench -M prepared` (C, one connection
 * per client) and by the suite's bench driver (worker threads, node-postgres, named statements), on the
 * same server, at the same client counts and thread counts, in interleaved trials. The ratio suite/pgbench
 * says how much of the measured cost is the driver's; the profile says where the time went.
 *
 *   npm run yardstick -- [--clients 1,4,16,64] [--trials 3] [--duration-ms 5000] [--warmup-ms 1000]
 *                        [--threads N] [--database-url URL] [--json] [--out FILE]
 *
 * Each trial runs, per client count, pgbench and the suite back to back (pgbench first in odd trials, the
 * suite first in even ones), each on a fresh schema, each measured over the same window after the same
 * warm-up. pgbench's throughput is read from the stock row (units taken in the window ÷ its length), as the
 * suite counts its HELD answers, not from pgbench's own report, which would include its first second.
 *
 * pgbench comes from PATH or /usr/lib/postgresql/<version>/bin, or from PGBENCH when set; without it the
 * script says so in one line and exits 0. A wrong argument: one line, exit 2. A failure: one line, exit 1.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as waitFor } from 'node:timers/promises';
import { sampleLockWaits } from '../harness/bench/lock-sampler.ts';
import { BENCH_SKU, runBench, type TrialSlot } from '../harness/bench/run-bench.ts';
import { meterProcesses, seriesServerPids, serverIsLocal } from '../harness/bench/saturation.ts';
import { openRunDatabase, type RunDatabase } from '../harness/database/database.ts';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { oneLine } from '../harness/errors.ts';
import { loadStrategy } from '../harness/registry/registry.ts';
import type { StrategyRef } from '../strategies/contract.ts';
import {
  failedTrialLines,
  type PairedTrial,
  PGBENCH_SCRIPT,
  parseYardstickArgs,
  renderYardstick,
  type SideTrial,
  summarize,
  YardstickInputError,
  type YardstickSettings,
} from './yardstick-core.ts';

const STOCK = 2_000_000_000;
const TTL_MS = 60_000;
/** pgbench's backends are named this, so the server's share of a run can be found (as the suite's are). */
const PGBENCH_APPLICATION = 'reservebench-pgbench-';

function findPgbench(): string | undefined {
  if (process.env.PGBENCH) return existsSync(process.env.PGBENCH) ? process.env.PGBENCH : undefined;
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(dir, 'pgbench'))) return join(dir, 'pgbench');
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort().reverse()
    : [];
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin/pgbench`).find(existsSync);
}

const takenSoFar = async (db: RunDatabase, schema: string): Promise<number> => {
  const { rows } = await db.admin.query<{ taken: number }>(
    `SELECT (total - available)::int AS taken FROM ${schema}.sku_stock WHERE sku = $1`,
    [BENCH_SKU],
  );
  return rows[0]?.taken ?? 0;
};

/**
 * One pgbench run at `clients`: fresh tables, the same warm-up and window as the suite's trial, and over
 * that window its throughput (from the stock row), its own CPU, its server processes' CPU and lock waits.
 */
async function runPgbench(
  pgbench: string,
  db: RunDatabase,
  hotRow: StrategyRef,
  script: string,
  clients: number,
  trial: number,
  threads: number,
  settings: YardstickSettings,
  localServer: boolean,
): Promise<SideTrial> {
  const schema = await db.createCaseSchema(`pgbench_${clients}_t${trial}`);
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await hotRow.strategy.setup(db.admin, [{ sku: BENCH_SKU, total: STOCK }]);
    await db.admin.query('RESET search_path');
    const application = `${PGBENCH_APPLICATION}${clients}-${trial}`;
    // pgbench runs a second past the window, so the window never meets its exit.
    const seconds = Math.ceil((settings.warmupMs + settings.durationMs) / 1000) + 1;
    const child = spawn(
      pgbench,
      [
        '-n',
        '-M',
        'prepared',
        '-c',
        String(clients),
        '-j',
        String(Math.min(clients, threads)),
        '-T',
        String(seconds),
        '-D',
        'n=0',
        '-D',
        `sku=${BENCH_SKU}`,
        '-D',
        `ttl=${TTL_MS}`,
        '-f',
        script,
        db.connectionString,
      ],
      {
        env: { ...process.env, PGOPTIONS: `-c search_path=${schema}`, PGAPPNAME: application },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    let exitCode: number | null | undefined;
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => {
        exitCode = code;
        resolve(code);
      });
    });
    const failed = () =>
      new Error(
        `pgbench exited with ${exitCode}: ${oneLine(output.trim().split('\n').slice(-2).join(' ') || 'no output')}`,
      );
    try {
      // The window starts once every client has connected and the warm-up has passed, as the suite's does.
      const connectBy = performance.now() + 15_000;
      for (;;) {
        const { rows } = await db.admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE starts_with(application_name, $1)',
          [application],
        );
        if ((rows[0]?.n ?? 0) >= clients) break;
        if (exitCode !== undefined) throw failed();
        if (performance.now() > connectBy)
          throw new Error(`pgbench's ${clients} clients did not connect in 15 s`);
        await waitFor(5);
      }
      await waitFor(settings.warmupMs);
      if (exitCode !== undefined) throw failed();
      // Found after the warm-up: pgbench's first connection (it checks the server with it) is gone by now.
      const serverPids = localServer ? await seriesServerPids(db.admin, application) : undefined;
      const takenBefore = await takenSoFar(db, schema);
      const windowStart = performance.now();
      const endDriver = meterProcesses(child.pid === undefined ? [] : [child.pid]);
      const endServer = serverPids && meterProcesses(serverPids);
      const lockWait = await sampleLockWaits(
        db.admin,
        () => performance.now() - windowStart >= settings.durationMs,
      );
      const driverCores = endDriver();
      const serverCores = endServer ? endServer() : null;
      const taken = (await takenSoFar(db, schema)) - takenBefore;
      const windowSeconds = (performance.now() - windowStart) / 1000;
      if (exitCode !== undefined) throw failed();
      if ((await exited) !== 0) throw failed();
      return {
        throughput: Math.round((taken / windowSeconds) * 10) / 10,
        driverCores,
        serverCores,
        lockWaiters: lockWait.meanWaiters,
        lockShare: lockWait.shareOfTime,
      };
    } finally {
      if (exitCode === undefined) {
        child.kill('SIGTERM');
        await exited.catch(() => undefined);
      }
    }
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    await db.dropCaseSchema(schema);
  }
}

async function main(): Promise<number> {
  let settings: YardstickSettings;
  try {
    settings = parseYardstickArgs(process.argv.slice(2));
  } catch (error: unknown) {
    if (!(error instanceof YardstickInputError)) throw error;
    process.stderr.write(`yardstick: ${error.message}\n`);
    return 2;
  }
  const pgbench = findPgbench();
  if (!pgbench) {
    process.stdout.write(
      `yardstick: pgbench not found (${process.env.PGBENCH ? `PGBENCH=${process.env.PGBENCH}` : 'PATH, /usr/lib/postgresql/*/bin or PGBENCH'}): skipped\n`,
    );
    return 0;
  }
  const threads = settings.threads ?? availableParallelism();
  const progress = (line: string) => process.stderr.write(`yardstick: ${line}\n`);

  const server = settings.databaseUrl ? undefined : await startEmbeddedServer();
  const serverUrl = settings.databaseUrl ?? server?.adminUrl ?? '';
  const paired: PairedTrial[] = [];
  const failures: { clients: number; trial: number; problems: string[] }[] = [];
  let document: Record<string, unknown>;
  try {
    const hotRow = await loadStrategy('hot-row');
    const db = await openRunDatabase({ databaseUrl: serverUrl });
    const scriptDir = mkdtempSync(join(tmpdir(), 'reservebench-pgbench-'));
    const script = join(scriptDir, 'reserve.sql');
    writeFileSync(script, PGBENCH_SCRIPT);
    const pgbenchTrials = new Map<string, SideTrial>();
    try {
      const localServer = await serverIsLocal(db.admin, db.name);
      const runPgbenchAt = async ({ clients, trial }: TrialSlot) => {
        const side = await runPgbench(
          pgbench,
          db,
          hotRow,
          script,
          clients,
          trial,
          threads,
          settings,
          localServer,
        );
        pgbenchTrials.set(`${clients}/${trial}`, side);
        progress(`trial ${trial}/${settings.trials}, ${clients} clients: pgbench ${side.throughput} tx/s`);
      };
      const suite = await runBench({
        strategies: [hotRow],
        clients: settings.clients,
        warmupMs: settings.warmupMs,
        durationMs: settings.durationMs,
        stock: STOCK,
        timeoutMs: 60_000,
        databaseUrl: serverUrl,
        threads,
        trials: settings.trials,
        // Odd trials run pgbench first, even ones the suite: drift within a pair cancels over the trials.
        beforeTrial: (slot) => (slot.trial % 2 === 1 ? runPgbenchAt(slot) : Promise.resolve()),
        afterTrial: (slot) => (slot.trial % 2 === 0 ? runPgbenchAt(slot) : Promise.resolve()),
        onTrial: (label) => progress(`${label}: suite done`),
      });
      for (const entry of suite.bench) {
        for (const t of entry.trials) {
          const side = pgbenchTrials.get(`${entry.clients}/${t.trial}`);
          if (!side) continue;
          if (t.status !== 'ok')
            failures.push({ clients: entry.clients, trial: t.trial, problems: t.problems });
          paired.push({
            trial: t.trial,
            clients: entry.clients,
            first: t.trial % 2 === 1 ? 'pgbench' : 'suite',
            pgbench: side,
            suite:
              t.status === 'ok'
                ? {
                    throughput: t.throughput,
                    driverCores: t.saturation.generatorCores,
                    serverCores: t.saturation.serverCores,
                    lockWaiters: t.lockWait.meanWaiters,
                    lockShare: t.lockWait.shareOfTime,
                  }
                : null,
          });
        }
      }
      document = {
        yardstick: {
          strategy: 'hot-row',
          pgbench: { path: pgbench, queryMode: 'prepared', script: PGBENCH_SCRIPT },
          clients: settings.clients,
          trials: settings.trials,
          warmupMs: settings.warmupMs,
          durationMs: settings.durationMs,
          threads,
        },
        environment: suite.environment,
        uncontended: suite.uncontended,
      };
    } finally {
      rmSync(scriptDir, { recursive: true, force: true });
      await db.close({ keep: false });
    }
  } finally {
    await server?.stop({ keepData: false });
  }
  const summaries = summarize(paired);
  const json = `${JSON.stringify({ ...document, series: summaries, failures }, null, 2)}\n`;
  if (settings.out) writeFileSync(settings.out, json);
  if (settings.json) {
    process.stdout.write(json);
  } else {
    process.stdout.write(renderYardstick(summaries, settings));
  }
  for (const line of failedTrialLines(failures)) process.stderr.write(`${line}\n`);
  return failures.length > 0 ? 1 : 0;
}

try {
  process.exit(await main());
} catch (error: unknown) {
  process.stderr.write(`yardstick: ${oneLine(error)}\n`);
  process.exit(1);
}
