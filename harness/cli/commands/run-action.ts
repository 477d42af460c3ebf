/** What `reservebench run` does (its options: run-options.ts), imported only when it runs. */

import { join } from 'node:path';
import type { ScenarioOverrides } from '../../contract/case-settings.ts';
import type { ScenarioBase, Selection } from '../../contract/contract.ts';
import type { TargetGiven } from '../../contract/contract-target.ts';
import { EXIT } from '../../errors.ts';
import { exploreCase } from '../../explore/explore-case.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { exploredVariant } from '../../explore/explored-variant.ts';
import { wasInterrupted } from '../../interrupted.ts';
import { type ParamSweep, parseParamSweep, refuseStraySweep } from '../../registry/strategy-variants.ts';
import { buildReport, type Report, writeReportFiles } from '../../report/report.ts';
import { runJunit } from '../../report/run-junit.ts';
import { caseLine, renderTerminal } from '../../report/terminal.ts';
import { blackBoxRun } from '../../suite/black-box-run.ts';
import type { AnyContract, SelectedContract, SuiteOptions } from '../../suite/suite.ts';
import { runOnVersions } from '../../suite/version-suite.ts';
import { type CaseResultBase, failsTheRun, isCoverageGap } from '../../verdict/case-result.ts';
import { type TargetChoice, targetArgs, targetChoice } from '../black-box-options.ts';
import { publishResults } from '../ci-results.ts';
import { databaseUrlFrom, junitFile, postgresMajorsFrom, reportsFolder } from '../cli-arguments.ts';
import { clusterFrom } from '../cluster-from.ts';
import type { CommandContext } from '../command-definition.ts';
import { chooseContracts, loadDesigns, type RunChoice } from '../contract-selection.ts';
import { caseProgress } from '../progress.ts';
import type { RunArgs } from './run-options.ts';

export async function runCommand(args: RunArgs, context: CommandContext): Promise<number> {
  const target = targetArgs(args, context.label);
  const strategyLabel = context.label('strategy');
  const withClusters = args.cluster !== undefined;
  const choice = await chooseContracts(args.strategy, args.scenario, args.spec, withClusters, strategyLabel);
  const exploreBudget = args['explore-budget'];
  // Merged over each scenario's input: an option not given must not be there at all.
  const overrides = {
    ...(args.clients !== undefined ? { clients: args.clients } : {}),
    ...(args.stock !== undefined ? { stock: args.stock } : {}),
  };
  if (target) {
    const named = args.scenario.length > 0 || args.spec.length > 0;
    const driven = targetChoice(choice, named, context.label('target'));
    return runAgainstTarget(target, driven, { ...args, overrides }, context);
  }
  const databaseUrl = databaseUrlFrom(args['database-url']);
  const majors = postgresMajorsFrom(args.postgres, databaseUrl);
  const reports = reportsFolder(args.reports, context.label('reports'));
  const junit = args.junit === undefined ? undefined : junitFile(args.junit, context.label('junit'));
  const explore =
    exploreBudget > 0 && choice.explore
      ? (contract: AnyContract) => explorer(contract, exploreBudget, args['explore-seed'], reports)
      : undefined;
  const contracts = await selectedContracts(choice, parseParamSweep(args.param), explore, strategyLabel);
  const progress = args.json ? undefined : caseLines(args.verbose, args['require-coverage']);

  const result = await runOnVersions(
    {
      contracts,
      run: {
        overrides,
        repeat: args.repeat,
        threads: args.threads,
        ...(args.isolation.length > 0 ? { isolation: args.isolation } : {}),
      },
      keep: args.keep,
      timeoutMs: args['timeout-ms'],
      requireCoverage: args['require-coverage'],
      permutations: args.permutations,
      jobs: args.jobs,
      databaseUrl,
      durability: args.durability,
      cluster: clusterFrom(
        args,
        contracts.flatMap((c) => c.selection.scenarios),
      ),
      ...progress?.told,
    },
    majors,
  );
  progress?.stop();
  const report = buildReport(result, context.configuration);
  writeReport(reports, report, { json: args.json, junit });
  for (const line of result.kept) process.stderr.write(`${line}\n`);
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}

/**

 * Each chosen contract with its designs (a `--param` sweep's variants among them; the sweep may name only
 * designs run here), its scenarios, and the explorer where the contract has one.
 */
async function selectedContracts(
  choice: RunChoice,
  sweep: ParamSweep,
  explore: ((contract: AnyContract) => ContractExploration | undefined) | undefined,
  strategyLabel: string,
): Promise<SelectedContract[]> {
  const loaded = await Promise.all(
    choice.contracts.map(async (c) => ({
      ...c,
      designs: await loadDesigns(c.contract, c.designNames, strategyLabel),
    })),
  );
  refuseStraySweep(
    sweep,
    loaded.flatMap(({ contract, designs }) => designs.map((ref) => contract.designs.info(ref).design.id)),
  );
  return loaded.map(({ contract, designs, scenarios }) => {
    const explored = explore?.(contract);
    return {
      contract,
      selection: {
        designs: contract.designs.withVariants(designs, sweep),
        scenarios,
        ...(explored ? { explore: explored } : {}),
      },
    };
  });
}

/**
 * While the run goes on, on stderr: a progress bar on a terminal, and a line for each case that needs
 * attention — one that fails the run (a safe design broke, a control was not caught, a case could not run to
 * its end; with --require-coverage a case not covered) — or, with --verbose, for every case that ran. Cases
 * cut short by Ctrl-C fail on closed connections: they are no result, and are not printed.
 */
function caseLines(
  verbose: boolean,
  requireCoverage: boolean,
): { told: Pick<SuiteOptions, 'onCase' | 'onPlan'>; stop(): void } {
  const bar = caseProgress();
  return {
    told: {
      onPlan: (items) => bar.plan(items),
      onCase: (contract, c) => {
        if (wasInterrupted()) return;
        const fails = failsTheRun(c) || (requireCoverage && isCoverageGap(c));
        const shown = fails || (verbose && c.status !== 'n/a');
        bar.done(c.id, fails, shown ? caseLine(contract, c) : undefined);
      },
    },
    stop: () => bar.stop(),
  };
}

/** The report's files, what stdout shows of it, and its results where CI reads them (--junit, GitHub). */
function writeReport(
  reports: string,
  report: Report,
  output: { json: boolean; junit: string | undefined },
): void {
  const folder = writeReportFiles(reports, report);
  if (output.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${renderTerminal(report)}\nreport: ${folder}/report.md\n`);
  }
  publishResults(output.junit, runJunit(report), report.ok);
}

type ContractExploration = NonNullable<Selection<unknown, ScenarioBase, CaseResultBase>['explore']>;

/**
 * The default run's exploration of a contract's designs (none for a contract without an explorer side):
 * every design, a fixed seed, a scope counted in programs.
 */
function explorer(
  contract: AnyContract,
  scope: number,
  seed: number,
  reports: string,
): ContractExploration | undefined {
  const side = contract.explore;
  if (!side) return undefined;
  return {
    connections: side.connections,
    run: (db, ref, settings) =>
      exploreCase(
        db,
        {
          explore: side,
          ref: exploredVariant(contract.designs, ref),
          design: contract.designs.info(ref).design,
        },
        { ...settings, timeoutMs: Math.min(settings.timeoutMs, EXPLORE_DEFAULTS.timeoutMs) },
        {
          seed,
          budget: {
            scope,
            programs: EXPLORE_DEFAULTS.perDesignInRun,
            shrinkRuns: EXPLORE_DEFAULTS.shrinkRunsInRun,
          },
          specDir: join(reports, 'explore'),
          replays: EXPLORE_DEFAULTS.replaysInRun,
        },
      ),
  };
}

/**
 * `run --target`: the chosen contract asks the service whether it speaks its API first, then every case
 * runs against it.
 */
async function runAgainstTarget(
  given: TargetGiven,
  { contract, scenarios }: TargetChoice,
  options: RunArgs & { overrides: ScenarioOverrides },
  context: CommandContext,
): Promise<number> {
  const target = await contract.target.connect(given);
  const progress = options.json ? undefined : caseLines(options.verbose, options['require-coverage']);
  // Only once the service answered as the API says: a refused target leaves nothing behind.
  const reports = reportsFolder(options.reports, context.label('reports'));
  const junit = options.junit === undefined ? undefined : junitFile(options.junit, context.label('junit'));
  const onCase = progress?.told.onCase;
  const cases = await target.run(scenarios, {
    overrides: options.overrides,
    repeat: options.repeat,
    timeoutMs: options['timeout-ms'],
    ...(onCase ? { onCase: (c: CaseResultBase) => onCase(contract, c) } : {}),
  });
  progress?.stop();
  const run = { design: target.design, scenarios, cases };
  const result = blackBoxRun(contract, run, options['require-coverage']);
  // The contract's report shape declares the `target` field (report-schema.ts joins every contract's).
  const section = target.section(cases) as Report['target'];
  const report = { ...buildReport(result, context.configuration), target: section };
  writeReport(reports, report, { json: options.json, junit });
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}
