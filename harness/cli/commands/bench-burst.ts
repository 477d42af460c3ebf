/**
 * `bench --burst N[,N…]`: the options of the flash sale checked before anything starts (one line, exit 2),
 * the bursts run, and their report written. What a burst cannot mean — a schedule of arrivals, a measured
 * window, trials — is refused rather than silently ignored (their declarations exclude --burst).
 */
import { availableParallelism } from 'node:os';
import { type BurstSettings, runBursts } from '../../bench/run-burst.ts';
import { Errors, EXIT } from '../../errors.ts';
import { buildBurstReport, writeBenchReportFiles } from '../../report/bench/bench-report.ts';
import { renderBenchTerminal } from '../../report/bench/bench-terminal.ts';
import type { Configuration } from '../../report/configuration-schema.ts';
import { wholeNumber } from '../cli-arguments.ts';
import { progressBar } from '../progress.ts';
import { DEFAULT_BURST_STOCK, MAX_BURST } from './burst-limits.ts';

/** The bench's options a burst reads, as resolved (bench-command.ts declares them all). */
interface BurstArgs {
  burst: readonly number[];
  clients: readonly number[];
  stock: number | undefined;
  processes: number | undefined;
  retries: number | undefined;
  threads: number | undefined;
  seed: number | undefined;
}

/**
 * The burst's settings from the options, each value checked as the burst reads it: one count of clients
 * (the pool of connections), at most MAX_BURST units, no more processes than the fewest requests.
 */
export function burstSettingsFrom(
  args: BurstArgs,
  label: (name: string) => string,
): Omit<
  BurstSettings,
  'strategies' | 'designs' | 'durabilities' | 'databaseUrl' | 'admission' | 'timeoutMs'
> {
  const bursts = [...args.burst].sort((a, b) => a - b);
  const stock =
    args.stock === undefined
      ? DEFAULT_BURST_STOCK
      : wholeNumber(String(args.stock), label('stock'), 1, MAX_BURST);
  if (args.clients.length > 1)
    throw Errors.badInput(`${label('clients')} takes one count with --burst (the pool of connections)`);
  const connections = args.clients[0];
  const { processes } = args;
  const fewest = Math.min(connections ?? Number.POSITIVE_INFINITY, ...bursts);
  if (processes !== undefined && processes > fewest) {
    throw Errors.badInput(
      `${label('processes')} ${processes} needs at least as many connections, and a burst of ${fewest} has ${fewest}`,
    );
  }
  return {
    bursts,
    stock,
    connections,
    processes,
    threads: args.threads ?? availableParallelism(),
    retrySeed: args.seed ?? 1,
    retries: args.retries,
  };
}

/** Runs the bursts and writes their report; exit 1 when a burst failed its audit or could not run. */
export async function runBurstCommand(
  settings: BurstSettings,
  output: { json: boolean; reports: string; configuration: Configuration },
): Promise<number> {
  const { json, reports } = output;
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
  const report = buildBurstReport(result, output.configuration);
  const folder = writeBenchReportFiles(reports, report);
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${renderBenchTerminal(report)}\nreport: ${folder}/report.md\n`);
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}
