/** `reservebench bench`: the series and their trials, the progress bar, the bench report and its charts. */

import { buildBenchReport, writeBenchReportFiles } from '../../bench/bench-report.ts';
import { renderBenchTerminal } from '../../bench/bench-terminal.ts';
import { runBench } from '../../bench/run-bench.ts';
import { EXIT } from '../../errors.ts';
import { loadAllBuiltIn } from '../../registry/registry.ts';
import { withVariants } from '../../registry/strategy-variants.ts';
import {
  admissionFrom,
  boundedInteger,
  databaseUrlFrom,
  durabilitiesFrom,
  list,
  MAX_CLIENTS,
  paramSweepFrom,
  reportsFolder,
  resolveStrategies,
} from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, value } from '../command-definition.ts';
import { progressBar } from '../progress.ts';
import { reportOptions } from './report-options.ts';

export const DEFAULT_BENCH_CLIENTS = [1, 4, 16, 64, 150];
/** The fewest that give an interval at all and a median that one odd run cannot move. */
export const DEFAULT_BENCH_TRIALS = 3;

function clientList(value: unknown): number[] {
  const counts = list('clients', value);
  if (counts.length === 0) return DEFAULT_BENCH_CLIENTS;
  return counts.map((v) => boundedInteger('clients', v, 1, MAX_CLIENTS) ?? 0).sort((a, b) => a - b);
}

const OPTIONS = {
  strategy: value('strategy ids or module paths; default: every built-in strategy with expect: hold', {
    repeatable: true,
  }),
  clients: value(`client counts, comma-separated (default ${DEFAULT_BENCH_CLIENTS.join(',')})`),
  admission: value('also run each count behind bounded admission LIMIT:WAITING, e.g. 4:8'),
  'wait-ms': value('longest wait for an admission permit (400)'),
  'warmup-ms': value('unmeasured warm-up per series (1000)'),
  'duration-ms': value('measured window per series (3000)'),
  trials: value('runs of every series, interleaved with the others, for a median and an interval (3)'),
  threads: value('worker threads for the clients (default: one per core)'),
  stock: value('units per series, enough never to sell out (1000000)'),
  param: value('a design knob to sweep, <id>.<knob>=v1,v2,…: a series per value (list shows the knobs)', {
    repeatable: true,
  }),
  durability: value(
    'on (default): every commit waits for its WAL flush, as in production; off: it does not; on,off: both, and the cost',
  ),
  ...reportOptions('reports/<stamp>-bench/ and latest-bench/'),
  'timeout-ms': value('longest wait for the clients to connect (60000)'),
};

export type BenchArgs = ArgsOf<typeof OPTIONS>;

export async function benchCommand(args: BenchArgs): Promise<number> {
  const clients = clientList(args.clients);
  const gate = admissionFrom(args.admission);
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  const warmupMs = boundedInteger('warmup-ms', args['warmup-ms'], 0, 600_000) ?? 1_000;
  const durationMs = boundedInteger('duration-ms', args['duration-ms'], 100, 3_600_000) ?? 3_000;
  // Enough that the fastest design (coalesced, ~65k/s on a quiet machine) never sells out in a series.
  const stock = boundedInteger('stock', args.stock, 1, 2_000_000) ?? 1_000_000;
  const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
  const threads = boundedInteger('threads', args.threads, 1, 64);
  const trials = boundedInteger('trials', args.trials, 1, 100) ?? DEFAULT_BENCH_TRIALS;
  const databaseUrl = databaseUrlFrom(args);
  const durabilities = durabilitiesFrom(args.durability);
  const names = list('strategy', args.strategy);
  const strategies = withVariants(
    names.length > 0
      ? await resolveStrategies(names)
      : (await loadAllBuiltIn()).filter((r) => r.strategy.expect === 'hold'),
    paramSweepFrom(args.param),
  );
  const reports = reportsFolder(args.reports);

  const progress = args.json
    ? undefined
    : progressBar(strategies.length * durabilities.length * clients.length * (gate ? 2 : 1) * trials);
  const result = await runBench({
    strategies,
    clients,
    warmupMs,
    durationMs,
    stock,
    timeoutMs,
    trials,
    threads,
    ...(gate ? { admission: { ...gate, waitMs } } : {}),
    databaseUrl,
    durabilities,
    ...(progress ? { onTrial: (label: string) => progress.tick(label) } : {}),
  });
  progress?.stop();
  const report = buildBenchReport(result);
  const folder = writeBenchReportFiles(reports, report);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`${renderBenchTerminal(report)}\nreport: ${folder}/report.md\n`);
  }
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}

export const BENCH = defineCommand({
  name: 'bench',
  describe: 'measure throughput, latency and lock waiting per strategy × client count (× admission)',
  options: OPTIONS,
  run: benchCommand,
});
