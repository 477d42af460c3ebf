/**
 * `bench --burst N[,N…]`: the options of the flash sale checked before anything starts (one line, exit 2),
 * the bursts run, and their report written. What a burst cannot mean — a schedule of arrivals, a measured
 * window, trials — is refused rather than silently ignored.
 */
import { availableParallelism } from 'node:os';
import { buildBurstReport, writeBenchReportFiles } from '../../bench/bench-report.ts';
import { renderBenchTerminal } from '../../bench/bench-terminal.ts';
import { type BurstSettings, runBursts } from '../../bench/run-burst.ts';
import { Errors, EXIT } from '../../errors.ts';
import { boundedInteger, list, MAX_CLIENTS, MAX_SEED } from '../cli-arguments.ts';
import { progressBar } from '../progress.ts';

/** The bench's options a burst reads (bench-command.ts defines them all). */
type BurstArgs = Partial<
  Record<
    | 'burst'
    | 'processes'
    | 'retries'
    | 'stock'
    | 'clients'
    | 'threads'
    | 'seed'
    | 'admission'
    | (typeof NOT_WITH_BURST)[number],
    unknown
  >
>;

/** The must-show: 10,000 requests in one instant. */
export const MAX_BURST = 10_000;
/** Seed 000's scale: 40 units. */
export const DEFAULT_BURST_STOCK = 40;
export const MAX_BURST_PROCESSES = 16;
export const MAX_RETRIES = 1_000;

/** Options of the closed loop and the open model that mean nothing for one instant. */
const NOT_WITH_BURST = ['rate', 'arrivals', 'latency-limit', 'trials', 'warmup-ms', 'duration-ms'] as const;

export function burstSizes(args: BurstArgs): number[] {
  const sizes = list('burst', args.burst).map((v) => boundedInteger('burst', v, 1, MAX_BURST) ?? 0);
  if (sizes.length === 0) {
    const alone = (['processes', 'retries'] as const).find((name) => args[name] !== undefined);
    if (alone) throw Errors.badInput(`--${alone} needs --burst`);
    return [];
  }
  const clash = NOT_WITH_BURST.find((name) => args[name] !== undefined);
  if (clash)
    throw Errors.badInput(`--${clash} cannot go with --burst (a burst is one instant, not a window)`);
  return [...sizes].sort((a, b) => a - b);
}

/** `--retries`: a client's patience with 503s, which only the gate gives. */
function retriesFrom(args: BurstArgs): number | undefined {
  const retries = boundedInteger('retries', args.retries, 0, MAX_RETRIES);
  if (retries !== undefined && args.admission === undefined) {
    throw Errors.badInput('--retries needs --admission (only the gate answers 503)');
  }
  return retries;
}

/** The burst's settings from the command line, every value checked; `bursts` from burstSizes. */
export function burstSettingsFrom(
  args: BurstArgs,
  bursts: number[],
): Omit<
  BurstSettings,
  'strategies' | 'designs' | 'durabilities' | 'databaseUrl' | 'admission' | 'timeoutMs'
> {
  const stock = boundedInteger('stock', args.stock, 1, MAX_BURST) ?? DEFAULT_BURST_STOCK;
  const counts = list('clients', args.clients);
  if (counts.length > 1)
    throw Errors.badInput('--clients takes one count with --burst (the pool of connections)');
  const connections = boundedInteger('clients', counts[0], 1, MAX_CLIENTS);
  const processes = boundedInteger('processes', args.processes, 1, MAX_BURST_PROCESSES);
  const fewest = Math.min(connections ?? Number.POSITIVE_INFINITY, ...bursts);
  if (processes !== undefined && processes > fewest) {
    throw Errors.badInput(
      `--processes ${processes} needs at least as many connections, and a burst of ${fewest} has ${fewest}`,
    );
  }
  return {
    bursts,
    stock,
    connections,
    processes,
    threads: boundedInteger('threads', args.threads, 1, 64) ?? availableParallelism(),
    retrySeed: boundedInteger('seed', args.seed, 0, MAX_SEED) ?? 1,
    retries: retriesFrom(args),
  };
}

/** Runs the bursts and writes their report; exit 1 when a burst failed its audit or could not run. */
export async function runBurstCommand(
  settings: BurstSettings,
  json: boolean,
  reports: string,
): Promise<number> {
  const rows =
    settings.strategies.length *
    (settings.durabilities?.length ?? 1) *
    settings.bursts.length *
    (settings.admission ? 2 : 1);
  const progress = json ? undefined : progressBar(rows);
  const result = await runBursts({
    ...settings,
    ...(progress ? { onRow: (label: string) => progress.tick(label) } : {}),
  });
  progress?.stop();
  const report = buildBurstReport(result);
  const folder = writeBenchReportFiles(reports, report);
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${renderBenchTerminal(report)}\nreport: ${folder}/report.md\n`);
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}
