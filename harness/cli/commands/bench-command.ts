/** `reservebench bench`: the series and their trials, the progress bar, the bench report and its charts. */

import type { StrategyRef } from '../../../strategies/contract.ts';
import { agentDrivers } from '../../bench/agents/agent-driver.ts';
import { ARRIVAL_KINDS } from '../../bench/arrivals.ts';
import { buildBenchReport, writeBenchReportFiles } from '../../bench/bench-report.ts';
import { renderBenchTerminal } from '../../bench/bench-terminal.ts';
import { type BenchSettings, runBench } from '../../bench/run-bench.ts';
import { Errors, EXIT } from '../../errors.ts';
import {
  isPaymentDesignId,
  loadPaymentDesign,
  type PaymentDesignRef,
} from '../../registry/payment-registry.ts';
import { loadAllBuiltIn } from '../../registry/registry.ts';
import { agentsFrom, refuseAgentsWithBurst } from '../agent-options.ts';
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
  resolveStrategies,
  shown,
  single,
} from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, flag, value } from '../command-definition.ts';
import { withKnobVariants } from '../payment-selection.ts';
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
  agents: value(
    'load agents: every series split over N agent processes (1–64), client i and arrival i to agent i mod N; started here unless --agents-external (docs/scale.md)',
  ),
  'agents-external': flag(
    'with --agents: you start the agents (reservebench agent, over ssh, in a container, a CI job); the bench prints their command and waits',
  ),
  ...reportOptions('reports/<stamp>-bench/ and latest-bench/'),
  'timeout-ms': value(
    'longest wait for the clients to connect; with --burst also for every answer after the release (60000)',
  ),
};

export type BenchArgs = ArgsOf<typeof OPTIONS>;

interface BenchDesigns {
  strategies: StrategyRef[];
  payments: PaymentDesignRef[];
}

/**
 * The designs the command names (each knob value its own), or every built-in strategy that should hold.
 * Payment designs are benched apart from reservation strategies: their throughputs count other answers.
 */
async function benchDesigns(args: BenchArgs): Promise<BenchDesigns> {
  const names = list('strategy', args.strategy);
  const paymentIds = names.filter(isPaymentDesignId);
  const others = names.filter((n) => !isPaymentDesignId(n));
  if (paymentIds.length > 0 && others.length > 0) {
    throw Errors.badInput(
      `bench: payment designs (${paymentIds.join(', ')}) and reservation strategies (${others.join(', ')}) cannot share a bench: their throughputs count other answers`,
    );
  }
  const dup = paymentIds.find((id, i) => paymentIds.indexOf(id) !== i);
  if (dup) throw Errors.badInput(`strategy id "${dup}" is given twice`);
  const strategies =
    others.length > 0
      ? await resolveStrategies(others)
      : paymentIds.length > 0
        ? []
        : (await loadAllBuiltIn()).filter((r) => r.strategy.expect === 'hold');
  const payments = await Promise.all(paymentIds.map(loadPaymentDesign));
  return withKnobVariants(strategies, payments, paramSweepFrom(args.param));
}

/** A payment series is a closed loop of pairs: the burst and the open model drive reservations only. */
function refusePaymentsWith(designs: BenchDesigns, option: string | undefined): StrategyRef[] {
  if (option && designs.payments.length > 0) {
    throw Errors.badInput(`${option} drives reservations only; bench payment designs without it`);
  }
  return designs.strategies;
}

/** `bench --burst`: its settings checked, then the bursts run and reported. */
async function benchBursts(
  args: BenchArgs,
  bursts: number[],
  gate: ReturnType<typeof admissionFrom>,
  waitMs: number,
): Promise<number> {
  refuseAgentsWithBurst(args);
  const burst = burstSettingsFrom(args, bursts);
  const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
  const databaseUrl = databaseUrlFrom(args);
  const postgres = onePostgresMajor(args.postgres, databaseUrl, ONE_SERVER);
  const durabilities = durabilitiesFrom(args.durability);
  const reports = reportsFolder(args.reports);
  const settings = {
    ...burst,
    strategies: refusePaymentsWith(await benchDesigns(args), '--burst'),
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

export async function benchCommand(args: BenchArgs): Promise<number> {
  const bursts = burstSizes(args);
  const gate = admissionFrom(args.admission);
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  if (bursts.length > 0) return benchBursts(args, bursts, gate, waitMs);
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
  const strategies = refusePaymentsWith(designs, open ? '--rate' : undefined);
  const { payments } = designs;
  const reports = reportsFolder(args.reports);
  const agents = agentsFrom(args, { clients, pairs: payments.length > 0, databaseUrl, threads });

  const progress = args.json
    ? undefined
    : progressBar(
        (strategies.length + payments.length) *
          durabilities.length *
          clients.length *
          (gate ? 2 : 1) *
          (open?.rates.length ?? 1) *
          trials,
      );
  const result = await runBench({
    strategies,
    payments,
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
    ...(agents ? { drivers: agentDrivers(agents) } : {}),
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
