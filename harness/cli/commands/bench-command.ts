/** `reservebench bench`: the series and their trials, the progress bar, the bench report and its charts. */

import type { StrategyRef } from '../../../strategies/contract.ts';
import { agentDrivers } from '../../bench/agents/agent-driver.ts';
import { ARRIVAL_KINDS } from '../../bench/arrivals.ts';
import { benchDesign } from '../../bench/bench-design.ts';
import { DEFAULT_BURST_CONNECTIONS } from '../../bench/burst-plan.ts';
import { type BenchSettings, runBench } from '../../bench/run-bench.ts';
import type { BenchDesign } from '../../contract/bench-series.ts';
import { CONTRACTS } from '../../contracts/index.ts';
import { DEFAULT_DURABILITY, DURABILITIES } from '../../database/durability.ts';
import { Errors, EXIT } from '../../errors.ts';
import { parseParamSweep, refuseStraySweep } from '../../registry/strategy-variants.ts';
import {
  type BenchReport,
  buildBenchReport,
  writeBenchReportFiles,
} from '../../report/bench/bench-report.ts';
import { renderBenchTerminal } from '../../report/bench/bench-terminal.ts';
import type { AnyContract } from '../../suite/suite.ts';
import { agentsFrom, MAX_AGENTS } from '../agent-options.ts';
import { databaseUrlFrom, MAX_CLIENTS, MAX_SEED, onePostgresMajor, reportsFolder } from '../cli-arguments.ts';
import { type CommandContext, defineCommand, flag, type ParsedOf } from '../command-definition.ts';
import { contractOfDesign, loadDesigns } from '../contract-selection.ts';
import { choice, choices, integer, integers, texts } from '../option-types.ts';
import { progressBar } from '../progress.ts';
import {
  burstSettingsFrom,
  DEFAULT_BURST_STOCK,
  MAX_BURST,
  MAX_BURST_PROCESSES,
  MAX_RETRIES,
  NOT_WITH_BURST,
  runBurstCommand,
} from './bench-burst.ts';
import {
  admissionOption,
  configOption,
  databaseOption,
  paramOption,
  postgresOption,
  reportsOption,
  timeoutOption,
} from './shared-options.ts';

const ONE_SERVER = 'for a bench: its series compare designs on one server';

export const DEFAULT_BENCH_CLIENTS = [1, 4, 16, 64, 150];
/** The fewest that give an interval at all and a median that one odd run cannot move. */
export const DEFAULT_BENCH_TRIALS = 3;
/** Enough that the fastest design never sells out in a series. */
export const DEFAULT_BENCH_STOCK = 1_000_000;

/** The open model's bounds, far past what any machine serves: asking for an overload is valid. */
export const MAX_RATE = 1_000_000;
export const MAX_LATENCY_LIMIT_MS = 600_000;

const notWithBurst = { burst: NOT_WITH_BURST };
const needsRate = { anyOf: ['rate'], why: 'the open model' };

const OPTIONS = {
  strategy: texts(
    'design ids or module paths, all of one contract; designs of a contract other than the first run the closed loop only',
    { form: 'ID|PATH,…', absent: 'every built-in design of the first contract with expect: hold' },
  ),
  clients: integers('client counts, a series each; with --burst: one, the pool of connections', {
    min: 1,
    max: MAX_CLIENTS,
    absent: `${DEFAULT_BENCH_CLIENTS.join(',')}; with --burst: min(N, 150)`,
  }),
  ...admissionOption('also run each count behind bounded admission (e.g. 4:8)', {}),
  'wait-ms': integer('longest wait for an admission permit', {
    min: 1,
    max: 60_000,
    default: 400,
    needs: [{ anyOf: ['admission'] }],
  }),
  'warmup-ms': integer('unmeasured warm-up per series', {
    min: 0,
    max: 600_000,
    default: 1_000,
    excludes: notWithBurst,
  }),
  'duration-ms': integer('measured window per series', {
    min: 100,
    max: 3_600_000,
    default: 3_000,
    excludes: notWithBurst,
  }),
  trials: integer('runs of every series, interleaved with the others, for a median and an interval', {
    min: 1,
    max: 100,
    default: DEFAULT_BENCH_TRIALS,
    excludes: notWithBurst,
  }),
  threads: integer('worker threads for the clients', { min: 1, max: 64, absent: 'one per core' }),
  stock: integer(
    'units per series, enough never to sell out; with --burst: the units on sale (at most 10000)',
    {
      min: 1,
      max: 2_000_000,
      absent: `${DEFAULT_BENCH_STOCK}; with --burst: ${DEFAULT_BURST_STOCK}`,
    },
  ),
  ...paramOption('a design knob to sweep, <id>.<knob>=v1,v2,…: a series per value (list shows the knobs)'),
  rate: integers(
    'open model: arrivals per second, a series per rate; the clients are the pool that serves them',
    { min: 1, max: MAX_RATE, excludes: { admission: '', ...notWithBurst } },
  ),
  arrivals: choice('constant spacing, or poisson (exponential gaps from --seed)', ARRIVAL_KINDS, {
    default: 'constant',
    needs: [needsRate],
    excludes: notWithBurst,
  }),
  seed: integer(
    "with --arrivals poisson: the seed of the schedule; with --burst: of the clients' 503 backoff",
    {
      min: 0,
      max: MAX_SEED,
      absent: '1',
      needs: [{ anyOf: ['rate', 'burst'] }],
    },
  ),
  burst: integers(
    'flash sale: N distinct users each reserving once, all released at one instant; a row per N',
    { min: 1, max: MAX_BURST },
  ),
  processes: integer('the processes the requests of a burst are spread over', {
    min: 1,
    max: MAX_BURST_PROCESSES,
    absent: 'one per 2500 requests',
    needs: [{ anyOf: ['burst'] }],
  }),
  retries: integer("a burst's client's most retries after a 503 before it gives up", {
    min: 0,
    max: MAX_RETRIES,
    absent: '30',
    needs: [{ anyOf: ['burst'] }, { anyOf: ['admission'], why: 'only the gate answers 503' }],
  }),
  'latency-limit': integer('answers slower than this many ms are late, arrivals already later are dropped', {
    min: 1,
    max: MAX_LATENCY_LIMIT_MS,
    needs: [needsRate],
    excludes: notWithBurst,
  }),
  durability: choices(
    'on: every commit waits for its WAL flush, as in production; off: it does not; on,off: both, and the cost',
    DURABILITIES,
    { default: [DEFAULT_DURABILITY] },
  ),
  ...postgresOption("the embedded server's major (one: a bench compares designs on one server)"),
  agents: integer(
    'load agents: every series (or burst) split over N agent processes, client i, arrival i and burst request i to agent i mod N; started here unless --agents-external (docs/scale.md)',
    {
      min: 1,
      max: MAX_AGENTS,
      excludes: {
        admission:
          'each agent would have a gate of its own (N × LIMIT inside); a shared gate is serve --gate postgres',
        processes: 'with --burst each agent is one process of the burst',
      },
    },
  ),
  'agents-external': flag(
    'you start the agents (reservebench agent, over ssh, in a container, a CI job); the bench prints their command and waits',
    { needs: [{ anyOf: ['agents'] }] },
  ),
  json: flag('print the JSON report on stdout, no tables'),
  ...databaseOption(),
  ...reportsOption('reports/<stamp>-bench/ and latest-bench/'),
  ...timeoutOption(
    'longest wait for the clients to connect; with --burst also for every answer after the release',
  ),
  ...configOption('bench'),
};

export type BenchArgs = ParsedOf<typeof OPTIONS>;

/** The open model (`--rate`), whose other options the declarations let through only with it. */
function openFrom(args: BenchArgs, context: CommandContext): BenchSettings['open'] {
  if (args.rate.length === 0) return undefined;
  if (args.seed !== undefined && args.arrivals !== 'poisson') {
    throw Errors.badInput(
      `${context.label('seed')} needs --arrivals poisson (a constant schedule has nothing to draw)`,
    );
  }
  return {
    rates: [...args.rate].sort((a, b) => a - b),
    arrivals: args.arrivals,
    seed: args.seed ?? 1,
    latencyLimitMs: args['latency-limit'] ?? null,
  };
}

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
async function benchDesigns(args: BenchArgs, label: string): Promise<BenchDesigns> {
  const names = args.strategy;
  const byContract = new Map<AnyContract, string[]>();
  for (const name of names) {
    const contract = await contractOfDesign(name, label);
    byContract.set(contract, [...(byContract.get(contract) ?? []), name]);
  }
  if (byContract.size > 1) {
    const listed = [...byContract].map(([c, ids]) => `${c.id} designs (${ids.join(', ')})`).join(' and ');
    throw Errors.badInput(`bench: ${listed} cannot share a bench: their throughputs count other answers`);
  }
  const contract: AnyContract = [...byContract.keys()][0] ?? CONTRACTS[0];
  const { bench } = contract;
  if (!bench) throw Errors.badInput(`bench: the ${contract.id} contract has no bench series`);
  const loaded = await loadDesigns(contract, names, label);
  const refs =
    names.length > 0 ? loaded : loaded.filter((r) => contract.designs.info(r).design.expect === 'hold');
  const sweep = parseParamSweep(args.param);
  refuseStraySweep(
    sweep,
    refs.map((r) => contract.designs.info(r).design.id),
  );
  const variants: unknown[] = contract.designs.withVariants(refs, sweep);
  return {
    contract,
    refs: variants,
    series: variants.map((ref) => benchDesign({ designs: contract.designs, bench }, ref)),
  };
}

/** The flash-sale burst and the open model drive the first contract's designs (CONTRACTS[0]) only. */
function refuseOtherContracts(designs: BenchDesigns, option: string | undefined): StrategyRef[] {
  const [first] = CONTRACTS;
  if (option && designs.contract !== first) {
    throw Errors.badInput(
      `${option} drives ${first.id}s only; bench ${designs.contract.id} designs without it`,
    );
  }
  return designs.refs as StrategyRef[];
}

export async function benchCommand(args: BenchArgs, context: CommandContext): Promise<number> {
  const gate = args.admission ? { ...args.admission, waitMs: args['wait-ms'] } : undefined;
  const timeoutMs = args['timeout-ms'];
  const databaseUrl = databaseUrlFrom(args['database-url']);
  const postgres = onePostgresMajor(args.postgres, databaseUrl, ONE_SERVER);
  const durabilities = args.durability;
  if (args.burst.length > 0) {
    const burst = burstSettingsFrom(args, context.label);
    const designs = await benchDesigns(args, context.label('strategy'));
    const strategies = refuseOtherContracts(designs, '--burst');
    const reports = reportsFolder(args.reports, context.label('reports'));
    const connections = Math.min(burst.connections ?? DEFAULT_BURST_CONNECTIONS, ...burst.bursts);
    const agents = agentsFrom(args, {
      clients: [connections],
      pairs: false,
      databaseUrl,
      threads: args.threads,
    });
    const settings = {
      ...burst,
      strategies,
      designs: designs.series,
      durabilities,
      databaseUrl,
      postgres,
      timeoutMs,
      agents,
    };
    return runBurstCommand(gate ? { ...settings, admission: gate } : settings, {
      json: args.json,
      reports,
      configuration: context.configuration,
    });
  }
  const clients = args.clients.length > 0 ? [...args.clients].sort((a, b) => a - b) : DEFAULT_BENCH_CLIENTS;
  const { trials, threads } = args;
  const open = openFrom(args, context);
  const designs = await benchDesigns(args, context.label('strategy'));
  refuseOtherContracts(designs, open ? '--rate' : undefined);
  const reports = reportsFolder(args.reports, context.label('reports'));
  const agents = agentsFrom(args, {
    clients,
    pairs: designs.series.some((d) => d.group !== undefined),
    databaseUrl,
    threads,
  });

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
    warmupMs: args['warmup-ms'],
    durationMs: args['duration-ms'],
    stock: args.stock ?? DEFAULT_BENCH_STOCK,
    timeoutMs,
    trials,
    threads,
    ...(gate ? { admission: gate } : {}),
    ...(open ? { open } : {}),
    databaseUrl,
    postgres,
    durabilities,
    ...(progress ? { onTrial: (label: string) => progress.tick(label) } : {}),
    ...(agents ? { drivers: agentDrivers(agents) } : {}),
  });
  progress?.stop();
  return writeBench(buildBenchReport(result, context.configuration), reports, args.json);
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
