/**
 * The yardstick: the same hot-row reservation transaction run by `pgbench -M prepared` (C, one connection
 * per client) and by the suite's bench driver (worker threads, node-postgres, named statements), on the
 * same server, at the same client counts and thread counts, in interleaved trials. The ratio suite/pgbench
 * says how much of the measured cost is the driver's; the profile says where the time went.
 *
 *   npm run yardstick -- [--clients 1,4,16,64,150] [--trials 3] [--duration-ms 5000] [--warmup-ms 1000]
 *                        [--threads N] [--transport socket|tcp | --database-url URL] [--json] [--out FILE]
 *
 * Both sides reach the embedded server through its Unix-domain socket, as the bench's clients do
 * (`--transport tcp`: both over loopback TCP), or the server `--database-url` names, as its URL says.
 *
 * Each trial runs, per client count, pgbench and the suite back to back (pgbench first in odd trials, the
 * suite first in even ones), each on a fresh schema, each measured over the same window after the same
 * warm-up. pgbench's throughput is read from the stock row (units taken in the window ÷ its length), as the
 * suite counts its HELD answers, not from pgbench's own report, which would include its first second.
 *
 * pgbench comes from PATH or /usr/lib/postgresql/<version>/bin, or from PGBENCH when set; without it the
 * script says so in one line and exits 0. A wrong argument: one line, exit 2. A failure: one line, exit 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDesign } from '../harness/bench/bench-design.ts';
import { type BenchEntry, runBench, type TrialSlot } from '../harness/bench/run-bench.ts';
import { serverIsLocal } from '../harness/bench/saturation.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { openRunDatabase } from '../harness/database/database.ts';
import { type EmbeddedServer, startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { oneLine } from '../harness/errors.ts';
import { findPgbench, type PgbenchRig, runPgbench, STOCK } from './pgbench-trial.ts';
import {
  failedTrialLines,
  type PairedTrial,
  PGBENCH_SCRIPT,
  parseYardstickArgs,
  renderYardstick,
  type SideTrial,
  suiteDriver,
  summarize,
  YardstickInputError,
  type YardstickSettings,
} from './yardstick-core.ts';

interface FailedTrial {
  clients: number;
  trial: number;
  problems: string[];
}

/** What both sides measured: each trial paired, the suite's failed trials, and the document's head. */
interface YardstickRun {
  paired: PairedTrial[];
  failures: FailedTrial[];
  document: Record<string, unknown>;
}

const progress = (line: string) => process.stderr.write(`yardstick: ${line}\n`);

/** Each suite trial beside the pgbench run of the same slot; a suite trial that failed is also listed. */
function pairTrials(
  bench: readonly BenchEntry[],
  pgbenchTrials: ReadonlyMap<string, SideTrial>,
): Omit<YardstickRun, 'document'> {
  const paired: PairedTrial[] = [];
  const failures: FailedTrial[] = [];
  for (const entry of bench) {
    for (const t of entry.trials) {
      const side = pgbenchTrials.get(`${entry.clients}/${t.trial}`);
      if (!side) continue;
      if (t.status !== 'ok') failures.push({ clients: entry.clients, trial: t.trial, problems: t.problems });
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
  return { paired, failures };
}

/** The suite's bench of hot-row, with pgbench run beside each of its trials, off its clock. */
async function interleavedTrials(rig: PgbenchRig, serverUrl: string): Promise<YardstickRun> {
  const { settings, threads } = rig;
  const pgbenchTrials = new Map<string, SideTrial>();
  const runPgbenchAt = async ({ clients, trial }: TrialSlot) => {
    const side = await runPgbench(rig, clients, trial);
    pgbenchTrials.set(`${clients}/${trial}`, side);
    progress(`trial ${trial}/${settings.trials}, ${clients} clients: pgbench ${side.throughput} tx/s`);
  };
  const suite = await runBench({
    contract: RESERVATION.id,
    designs: [benchDesign(RESERVATION, rig.hotRow)],
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
  return {
    ...pairTrials(suite.bench, pgbenchTrials),
    document: {
      yardstick: {
        strategy: 'hot-row',
        pgbench: { path: rig.pgbench, queryMode: 'prepared', script: PGBENCH_SCRIPT },
        driver: suiteDriver(settings),
        clients: settings.clients,
        trials: settings.trials,
        warmupMs: settings.warmupMs,
        durationMs: settings.durationMs,
        threads,
      },
      environment: suite.environment,
      uncontended: suite.uncontended,
    },
  };
}

/** The embedded server's URL for `transport`; a socket asked for that the server could not open is an error. */
function embeddedUrl(server: EmbeddedServer, transport: YardstickSettings['transport']): string {
  if (transport === 'tcp') return server.adminUrl;
  if (server.socketUrl) return server.socketUrl;
  throw new Error(`the embedded server has no Unix socket (${server.dataDir} is too long a path for one)`);
}

/** Both sides on one server (the embedded one unless `--database-url`), each trial on its own schema. */
async function measureBothSides(
  pgbench: string,
  settings: YardstickSettings,
  threads: number,
): Promise<YardstickRun> {
  const server = settings.databaseUrl ? undefined : await startEmbeddedServer();
  try {
    const serverUrl = settings.databaseUrl ?? (server && embeddedUrl(server, settings.transport)) ?? '';
    const hotRow = await loadStrategy('hot-row');
    const db = await openRunDatabase({ databaseUrl: serverUrl });
    const scriptDir = mkdtempSync(join(tmpdir(), 'reservebench-pgbench-'));
    const script = join(scriptDir, 'reserve.sql');
    writeFileSync(script, PGBENCH_SCRIPT);
    try {
      const localServer = await serverIsLocal(db.admin, db.name);
      return await interleavedTrials(
        { pgbench, db, hotRow, script, threads, settings, localServer },
        serverUrl,
      );
    } finally {
      rmSync(scriptDir, { recursive: true, force: true });
      await db.close({ keep: false });
    }
  } finally {
    await server?.stop({ keepData: false });
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
  const { paired, failures, document } = await measureBothSides(pgbench, settings, threads);
  const summaries = summarize(paired);
  const json = `${JSON.stringify({ ...document, series: summaries, failures }, null, 2)}\n`;
  if (settings.out) writeFileSync(settings.out, json);
  if (settings.json) {
    process.stdout.write(json);
  } else {
    process.stdout.write(renderYardstick(summaries, settings, suiteDriver(settings)));
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
