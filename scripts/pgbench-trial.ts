/**
 * The yardstick's pgbench side: one `pgbench -M prepared` run at a client count, on fresh tables, measured
 * over the same warm-up and window as the suite's trial. Its throughput is read from the stock row (units
 * taken in the window ÷ its length), as the suite counts its HELD answers, not from pgbench's own report,
 * which would include its first second.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as waitFor } from 'node:timers/promises';
import { sampleLockWaits } from '../harness/bench/lock-sampler.ts';
import { meterProcesses, seriesServerPids } from '../harness/bench/saturation.ts';
import { BENCH_SKU } from '../harness/contract/bench-series.ts';
import type { RunDatabase } from '../harness/database/database.ts';
import { oneLine } from '../harness/errors.ts';
import type { StrategyRef } from '../strategies/contract.ts';
import type { SideTrial, YardstickSettings } from './yardstick-core.ts';

/** The stock both sides reserve from: more than any window can take. */
export const STOCK = 2_000_000_000;
const TTL_MS = 60_000;
/** pgbench's backends are named this, so the server's share of a run can be found (as the suite's are). */
const PGBENCH_APPLICATION = 'reservebench-pgbench-';

/** pgbench from PGBENCH when set, else from PATH, else from the newest /usr/lib/postgresql/<version>/bin. */
export function findPgbench(): string | undefined {
  if (process.env.PGBENCH) return existsSync(process.env.PGBENCH) ? process.env.PGBENCH : undefined;
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (existsSync(join(dir, 'pgbench'))) return join(dir, 'pgbench');
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort().reverse()
    : [];
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin/pgbench`).find(existsSync);
}

/** What every pgbench run of the yardstick shares. */
export interface PgbenchRig {
  pgbench: string;
  db: RunDatabase;
  hotRow: StrategyRef;
  /** The transaction file pgbench runs. */
  script: string;
  threads: number;
  settings: YardstickSettings;
  /** The server runs on this machine, so its processes' CPU can be read. */
  localServer: boolean;
}

/** A running pgbench, its output collected. */
interface PgbenchProcess {
  child: ChildProcess;
  /** Its exit code once it has closed. */
  exited: Promise<number | null>;
  /** Undefined while it runs. */
  readonly exitCode: number | null | undefined;
  /** The error for a pgbench that exited: its code and its last lines of output. */
  failed(): Error;
}

const takenSoFar = async (db: RunDatabase, schema: string): Promise<number> => {
  const { rows } = await db.admin.query<{ taken: number }>(
    `SELECT (total - available)::int AS taken FROM ${schema}.sku_stock WHERE sku = $1`,
    [BENCH_SKU],
  );
  return rows[0]?.taken ?? 0;
};

/** A postgres URL without its password, and the password (decoded), for libpq's PGPASSWORD. */
export function splitPassword(connectionString: string): { url: string; password: string } {
  const url = new URL(connectionString);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.href, password };
}

function spawnPgbench(rig: PgbenchRig, schema: string, clients: number, application: string): PgbenchProcess {
  const { settings } = rig;
  // pgbench runs a second past the window, so the window never meets its exit.
  const seconds = Math.ceil((settings.warmupMs + settings.durationMs) / 1000) + 1;
  const withoutPassword = splitPassword(rig.db.connectionString);
  const child = spawn(
    rig.pgbench,
    [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(clients),
      '-j',
      String(Math.min(clients, rig.threads)),
      '-T',
      String(seconds),
      '-D',
      'n=0',
      '-D',
      `sku=${BENCH_SKU}`,
      '-D',
      `ttl=${TTL_MS}`,
      '-f',
      rig.script,
      withoutPassword.url,
    ],
    {
      // The password goes by the environment: a child's argv is readable by every local user (ps).
      env: {
        ...process.env,
        PGOPTIONS: `-c search_path=${schema}`,
        PGAPPNAME: application,
        ...(withoutPassword.password ? { PGPASSWORD: withoutPassword.password } : {}),
      },
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
  return {
    child,
    exited,
    get exitCode() {
      return exitCode;
    },
    failed: () =>
      new Error(
        `pgbench exited with ${exitCode}: ${oneLine(output.trim().split('\n').slice(-2).join(' ') || 'no output')}`,
      ),
  };
}

/** Resolves once all of pgbench's clients are connected; throws if it exits first or takes over 15 s. */
async function clientsConnected(
  db: RunDatabase,
  run: PgbenchProcess,
  application: string,
  clients: number,
): Promise<void> {
  const connectBy = performance.now() + 15_000;
  for (;;) {
    const { rows } = await db.admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE starts_with(application_name, $1)',
      [application],
    );
    if ((rows[0]?.n ?? 0) >= clients) break;
    if (run.exitCode !== undefined) throw run.failed();
    if (performance.now() > connectBy)
      throw new Error(`pgbench's ${clients} clients did not connect in 15 s`);
    await waitFor(5);
  }
}

/** The measured window: units taken from the stock row, pgbench's CPU, its server processes' CPU, lock waits. */
async function measuredWindow(
  rig: PgbenchRig,
  run: PgbenchProcess,
  schema: string,
  application: string,
): Promise<SideTrial> {
  const { db } = rig;
  // Found after the warm-up: pgbench's first connection (it checks the server with it) is gone by now.
  const serverPids = rig.localServer ? await seriesServerPids(db.admin, application) : undefined;
  const takenBefore = await takenSoFar(db, schema);
  const windowStart = performance.now();
  const endDriver = meterProcesses(run.child.pid === undefined ? [] : [run.child.pid]);
  const endServer = serverPids && meterProcesses(serverPids);
  const lockWait = await sampleLockWaits(
    db.admin,
    () => performance.now() - windowStart >= rig.settings.durationMs,
  );
  const driverCores = endDriver();
  const serverCores = endServer ? endServer() : null;
  const taken = (await takenSoFar(db, schema)) - takenBefore;
  const windowSeconds = (performance.now() - windowStart) / 1000;
  if (run.exitCode !== undefined) throw run.failed();
  if ((await run.exited) !== 0) throw run.failed();
  return {
    throughput: Math.round((taken / windowSeconds) * 10) / 10,
    driverCores,
    serverCores,
    lockWaiters: lockWait.meanWaiters,
    lockShare: lockWait.shareOfTime,
  };
}

/**
 * One pgbench run at `clients`: fresh tables, the same warm-up and window as the suite's trial, and over
 * that window its throughput (from the stock row), its own CPU, its server processes' CPU and lock waits.
 */
export async function runPgbench(rig: PgbenchRig, clients: number, trial: number): Promise<SideTrial> {
  const { db } = rig;
  const schema = await db.createCaseSchema(`pgbench_${clients}_t${trial}`);
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await rig.hotRow.strategy.setup(db.admin, [{ sku: BENCH_SKU, total: STOCK }]);
    await db.admin.query('RESET search_path');
    const application = `${PGBENCH_APPLICATION}${clients}-${trial}`;
    const run = spawnPgbench(rig, schema, clients, application);
    try {
      // The window starts once every client has connected and the warm-up has passed, as the suite's does.
      await clientsConnected(db, run, application, clients);
      await waitFor(rig.settings.warmupMs);
      if (run.exitCode !== undefined) throw run.failed();
      return await measuredWindow(rig, run, schema, application);
    } finally {
      if (run.exitCode === undefined) {
        run.child.kill('SIGTERM');
        await run.exited.catch(() => undefined);
      }
    }
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    await db.dropCaseSchema(schema);
  }
}
