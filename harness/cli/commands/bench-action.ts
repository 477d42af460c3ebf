/** What `reservebench bench` does (its options: bench-options.ts), imported only when it runs. */

import type { StrategyRef } from '../../../strategies/contract.ts';
import { agentDrivers } from '../../bench/agents/agent-driver.ts';
import { benchDesign } from '../../bench/bench-design.ts';
import { DEFAULT_BURST_CONNECTIONS } from '../../bench/burst-plan.ts';
import { type BenchSettings, runBench } from '../../bench/run-bench.ts';
import type { BenchDesign } from '../../contract/bench-series.ts';
import { CONTRACTS } from '../../contracts/index.ts';
import { Errors, EXIT } from '../../errors.ts';
import { parseParamSweep, refuseStraySweep } from '../../registry/strategy-variants.ts';
import {
  type BenchReport,
  buildBenchReport,
  writeBenchReportFiles,
} from '../../report/bench/bench-report.ts';
import { renderBenchTerminal } from '../../report/bench/bench-terminal.ts';
import type { AnyContract } from '../../suite/suite.ts';
import { agentsFrom } from '../agent-options.ts';
import { databaseUrlFrom, onePostgresMajor, reportsFolder } from '../cli-arguments.ts';
import type { CommandContext } from '../command-definition.ts';
import { contractOfDesign, loadDesigns } from '../contract-selection.ts';
import { progressBar } from '../progress.ts';
import { burstSettingsFrom, runBurstCommand } from './bench-burst.ts';
import { type BenchArgs, DEFAULT_BENCH_CLIENTS, DEFAULT_BENCH_STOCK, ONE_SERVER } from './bench-options.ts';

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
