/** `reservebench bench`: the series and their trials, the progress bar, the bench report and its charts. */

import type { StrategyRef } from '../../../strategies/contract.ts';
import { ARRIVAL_KINDS } from '../../bench/arrivals.ts';
import { type BenchReport, buildBenchReport, writeBenchReportFiles } from '../../bench/bench-report.ts';
import { renderBenchTerminal } from '../../bench/bench-terminal.ts';
import { type BenchSettings, runBench } from '../../bench/run-bench.ts';
import type { BenchDesign } from '../../contract/bench-series.ts';
import { CONTRACTS } from '../../contracts/index.ts';
import { Errors, EXIT } from '../../errors.ts';
import { refuseStraySweep } from '../../registry/strategy-variants.ts';
import type { AnyContract } from '../../suite/suite.ts';
import {
  admissionFrom,
  boundedInteger,
  databaseUrlFrom,
  durabilitiesFrom,
  list,
  MAX_CLIENTS,
  MAX_SEED,
  onePostgresMajor,
  paramSweepFrom,
  reportsFolder,
  shown,
  single,
} from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, value } from '../command-definition.ts';
import { contractOfDesign, loadDesigns } from '../contract-selection.ts';
import { progressBar } from '../progress.ts';
import { burstSettingsFrom, burstSizes, runBurstCommand } from './bench-burst.ts';
import { reportOptions } from './report-options.ts';

const ONE_SERVER = 'for a bench: its series compare designs on one server';

export const DEFAULT_BENCH_CLIENTS = [1, 4, 16, 64, 150];
/** The fewest that give an interval at all and a median that one odd run cannot move. */
export const DEFAULT_BENCH_TRIALS = 3;

/** The open model's bounds: a rate the 2-core test machine cannot serve is still a valid overload. */
export const MAX_RATE = 1_000_000;
export const MAX_LATENCY_LIMIT_MS = 600_000;

/**
 * `--rate R[,R…]` with `--arrivals`, `--seed` and `--latency-limit`, which mean nothing without it; the
 * open model does not go with admission (a turned-away arrival would need its own accounting).
 */
function openFrom(args: BenchArgs): BenchSettings['open'] {
  const rates = list('rate', args.rate).map((v) => boundedInteger('rate', v, 1, MAX_RATE) ?? 0);
  const arrivals = single('arrivals', args.arrivals);
  if (arrivals !== undefined && !ARRIVAL_KINDS.some((kind) => kind === arrivals)) {
    throw Errors.badInput(`--arrivals must be constant or poisson, got ${shown(arrivals)}`);
  }
  const seed = boundedInteger('seed', args.seed, 0, MAX_SEED);
  const latencyLimitMs = boundedInteger('latency-limit', args['latency-limit'], 1, MAX_LATENCY_LIMIT_MS);
  if (rates.length === 0) {
    const without = [
      ['arrivals', arrivals],
      ['seed', seed],
      ['latency-limit', latencyLimitMs],
    ].find(([, v]) => v !== undefined);
    if (without) throw Errors.badInput(`--${without[0]} needs --rate (the open model)`);
    return undefined;
  }
  if (args.admission !== undefined) throw Errors.badInput('--rate cannot go with --admission');
  if (seed !== undefined && arrivals !== 'poisson') {
    throw Errors.badInput('--seed needs --arrivals poisson (a constant schedule has nothing to draw)');
  }
  return {
    rates: [...rates].sort((a, b) => a - b),
    arrivals: arrivals === 'poisson' ? 'poisson' : 'constant',
    seed: seed ?? 1,
    latencyLimitMs: latencyLimitMs ?? null,
  };
}

function clientList(value: unknown): number[] {
  const counts = list('clients', value);
  if (counts.length === 0) return DEFAULT_BENCH_CLIENTS;
  return counts.map((v) => boundedInteger('clients', v, 1, MAX_CLIENTS) ?? 0).sort((a, b) => a - b);
}

const OPTIONS = {
  strategy: value(
    'strategy ids or module paths, or payment design ids (not both); default: every built-in strategy with expect: hold',
    { repeatable: true },
  ),
  clients: value(
    `client counts, comma-separated (default ${DEFAULT_BENCH_CLIENTS.join(',')}); with --burst: one, the connections (min(N, 150))`,
  ),
  admission: value('also run each count behind bounded admission LIMIT:WAITING, e.g. 4:8'),
  'wait-ms': value('longest wait for an admission permit (400)'),
  'warmup-ms': value('unmeasured warm-up per series (1000)'),
  'duration-ms': value('measured window per series (3000)'),
  trials: value('runs of every series, interleaved with the others, for a median and an interval (3)'),
  threads: value('worker threads for the clients (default: one per core)'),
  stock: value('units per series, enough never to sell out (1000000); with --burst: the units on sale (40)'),
  param: value('a design knob to sweep, <id>.<knob>=v1,v2,…: a series per value (list shows the knobs)', {
    repeatable: true,
  }),
  rate: value(
    'open model: arrivals per second, comma-separated, a series per rate; the clients are the pool that serves them',
  ),
  arrivals: value('with --rate: constant (default) spacing, or poisson (exponential gaps from --seed)'),
  seed: value(
    "with --arrivals poisson: the seed of the schedule; with --burst: of the clients' 503 backoff (1)",
  ),
  burst: value(
    'flash sale: N distinct users each reserving once, all released at one instant; comma-separated, a row per N (up to 10000)',
  ),
  processes: value('with --burst: processes the requests are spread over (default one per 2500 requests)'),
  retries: value("with --burst and --admission: a client's most retries after a 503 before it gives up (30)"),
  'latency-limit': value(
    'with --rate: answers slower than this many ms are late, arrivals already later are dropped',
  ),
  durability: value(
    'on (default): every commit waits for its WAL flush, as in production; off: it does not; on,off: both, and the cost',
  ),
  postgres: value(
    "the embedded server's major, 14–18 (default 18); one: a bench compares designs on one server",
  ),
  ...reportOptions('reports/<stamp>-bench/ and latest-bench/'),
  'timeout-ms': value(
    'longest wait for the clients to connect; with --burst also for every answer after the release (60000)',
  ),
};

export type BenchArgs = ArgsOf<typeof OPTIONS>;

/** The designs a bench measures, all of one contract. */
interface BenchDesigns {
  contract: AnyContract;
  refs: unknown[];
  /** Each design's series, as its contract makes it. */
  series: BenchDesign[];
}

/**
 * The designs the command names (each knob value its own), or every built-in design that should hold of
 * the first contract. Designs of two contracts are never benched together: their throughputs count other
 * answers.
 */
async function benchDesigns(args: BenchArgs): Promise<BenchDesigns> {
  const names = list('strategy', args.strategy);
  const byContract = new Map<AnyContract, string[]>();
  for (const name of names) {
    const contract = await contractOfDesign(name);
    byContract.set(contract, [...(byContract.get(contract) ?? []), name]);
  }
  if (byContract.size > 1) {
    const listed = [...byContract].map(([c, ids]) => `${c.id} designs (${ids.join(', ')})`).join(' and ');
    throw Errors.badInput(`bench: ${listed} cannot share a bench: their throughputs count other answers`);
  }
  const contract: AnyContract = [...byContract.keys()][0] ?? CONTRACTS[0];
  const { bench } = contract;
  if (!bench) throw Errors.badInput(`bench: the ${contract.id} contract has no bench series`);
  const loaded = await loadDesigns(contract, names);
  const refs =
    names.length > 0 ? loaded : loaded.filter((r) => contract.designs.info(r).design.expect === 'hold');
  const sweep = paramSweepFrom(args.param);
  refuseStraySweep(
    sweep,
    refs.map((r) => contract.designs.info(r).design.id),
  );
  const variants: unknown[] = contract.designs.withVariants(refs, sweep);
  return { contract, refs: variants, series: variants.map((ref) => bench.design(ref)) };
}

/** The flash-sale burst and the open model drive the first contract's designs (reservations) only. */
function refuseOtherContracts(designs: BenchDesigns, option: string | undefined): StrategyRef[] {
  const [first] = CONTRACTS;
  if (option && designs.contract !== first) {
    throw Errors.badInput(
      `${option} drives ${first.id}s only; bench ${designs.contract.id} designs without it`,
    );
  }
  return designs.refs as StrategyRef[];
}

export async function benchCommand(args: BenchArgs): Promise<number> {
  const bursts = burstSizes(args);
  const gate = admissionFrom(args.admission);
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  if (bursts.length > 0) {
    const burst = burstSettingsFrom(args, bursts);
    const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
    const databaseUrl = databaseUrlFrom(args);
    const postgres = onePostgresMajor(args.postgres, databaseUrl, ONE_SERVER);
    const durabilities = durabilitiesFrom(args.durability);
    const reports = reportsFolder(args.reports);
    const designs = await benchDesigns(args);
    const strategies = refuseOtherContracts(designs, '--burst');
    const settings = {
      ...burst,
      strategies,
      designs: designs.series,
      durabilities,
      databaseUrl,
      postgres,
      timeoutMs,
    };
    return runBurstCommand(
      gate ? { ...settings, admission: { ...gate, waitMs } } : settings,
      !!args.json,
      reports,
    );
  }
  const clients = clientList(args.clients);
  const warmupMs = boundedInteger('warmup-ms', args['warmup-ms'], 0, 600_000) ?? 1_000;
  const durationMs = boundedInteger('duration-ms', args['duration-ms'], 100, 3_600_000) ?? 3_000;
  // Enough that the fastest design (coalesced, ~65k/s on a quiet machine) never sells out in a series.
  const stock = boundedInteger('stock', args.stock, 1, 2_000_000) ?? 1_000_000;
  const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
  const threads = boundedInteger('threads', args.threads, 1, 64);
  const trials = boundedInteger('trials', args.trials, 1, 100) ?? DEFAULT_BENCH_TRIALS;
  const databaseUrl = databaseUrlFrom(args);
  const postgres = onePostgresMajor(args.postgres, databaseUrl, ONE_SERVER);
  const durabilities = durabilitiesFrom(args.durability);
  const open = openFrom(args);
  const designs = await benchDesigns(args);
  refuseOtherContracts(designs, open ? '--rate' : undefined);
  const reports = reportsFolder(args.reports);

  const progress = args.json
    ? undefined
    : progressBar(
        designs.refs.length *
          durabilities.length *
          clients.length *
          (gate ? 2 : 1) *
          (open?.rates.length ?? 1) *
          trials,
      );
  const result = await runBench({
    contract: designs.contract.id,
    designs: designs.series,
    clients,
    warmupMs,
    durationMs,
    stock,
    timeoutMs,
    trials,
    threads,
    ...(gate ? { admission: { ...gate, waitMs } } : {}),
    ...(open ? { open } : {}),
    databaseUrl,
    postgres,
    durabilities,
    ...(progress ? { onTrial: (label: string) => progress.tick(label) } : {}),
  });
  progress?.stop();
  return writeBench(buildBenchReport(result), reports, !!args.json);
}

/** The bench report's files, and what stdout shows of it; exit 1 when a series failed its audit. */
function writeBench(report: BenchReport, reports: string, json: boolean): number {
  const folder = writeBenchReportFiles(reports, report);
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${renderBenchTerminal(report)}\nreport: ${folder}/report.md\n`);
  return report.ok ? EXIT.ok : EXIT.expectationFailed;
}

export const BENCH = defineCommand({
  name: 'bench',
  describe: 'measure throughput, latency and lock waiting per strategy × client count (× admission)',
  options: OPTIONS,
  run: benchCommand,
});
