/** `reservebench run`: the cases, the tables, the reports, and the exit code of the gate. */

import { join } from 'node:path';
import { ISOLATION_LEVELS } from '../../../strategies/contract.ts';
import type { ScenarioOverrides } from '../../contract/case-settings.ts';
import type { ScenarioBase, Selection } from '../../contract/contract.ts';
import type { TargetGiven } from '../../contract/contract-target.ts';
import { CONTRACTS } from '../../contracts/index.ts';
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
import {
  type AnyContract,
  DEFAULT_JOBS,
  type SelectedContract,
  type SuiteOptions,
} from '../../suite/suite.ts';
import { runOnVersions } from '../../suite/version-suite.ts';
import { type CaseResultBase, failsTheRun, isCoverageGap } from '../../verdict/case-result.ts';
import {
  notWithTarget,
  TARGET_OPTIONS,
  type TargetChoice,
  targetArgs,
  targetChoice,
} from '../black-box-options.ts';
import { publishResults } from '../ci-results.ts';
import {
  databaseUrlFrom,
  junitFile,
  MAX_CLIENTS,
  MAX_REPEAT,
  MAX_SEED,
  MAX_STOCK,
  postgresMajorsFrom,
  reportsFolder,
  shown,
} from '../cli-arguments.ts';
import { CLUSTER_OPTIONS, clusterFrom } from '../cluster-options.ts';
import { type CommandContext, defineCommand, flag, type ParsedOf } from '../command-definition.ts';
import { chooseContracts, loadDesigns, type RunChoice } from '../contract-selection.ts';
import { choice, choices, integer, texts } from '../option-types.ts';
import { caseProgress } from '../progress.ts';
import {
  configOption,
  databaseOption,
  durabilityOption,
  junitOption,
  paramOption,
  postgresOption,
  reportsOption,
  timeoutOption,
} from './shared-options.ts';

/** More lanes than this would only queue on the connection room and the cores. */
const MAX_JOBS = 16;

const OPTIONS = {
  strategy: texts(
    `design ids (${CONTRACTS.map((c) => `${c.id}: ${c.designs.builtInIds.join(', ')}`).join('; ')}) or module paths`,
    { form: 'ID|PATH,…', absent: 'all, of every contract', ...notWithTarget('strategy') },
  ),
  scenario: texts(
    `scenario ids (${CONTRACTS.flatMap((c) => c.scenarios.all.map((s: ScenarioBase) => s.id)).join(', ')}), or explore`,
    { form: 'ID,…', absent: 'all, then every design explored' },
  ),
  spec: texts(
    'a spec to run as a scenario (a finding the explorer wrote) against the designs of the contract its steps drive',
    { form: 'FILE,…' },
  ),
  'explore-budget': integer(
    `programs of the exhaustive scope the explorer runs per design, shortest first, after its sweep and before its ${EXPLORE_DEFAULTS.perDesignInRun} random programs (${EXPLORE_DEFAULTS.scopeInRun}: every program of up to ${EXPLORE_DEFAULTS.scopeLengthInRun} operations; 0: no exploration)`,
    { min: 0, max: 10_000_000, default: EXPLORE_DEFAULTS.scopeInRun },
  ),
  'explore-seed': integer("the seed of the default run's exploration; the same seed, the same programs", {
    min: 0,
    max: MAX_SEED,
    default: EXPLORE_DEFAULTS.seed,
  }),
  clients: integer('virtual clients per case', { min: 1, max: MAX_CLIENTS, absent: "the fixture's" }),
  stock: integer('units of the first sku', { min: 0, max: MAX_STOCK, absent: "the fixture's" }),
  repeat: integer('run each case this many times (intermittent bugs)', {
    min: 1,
    max: MAX_REPEAT,
    default: 1,
  }),
  verbose: flag('a line for every case as it finishes, not only for those that need attention'),
  json: flag('print the JSON report on stdout, no tables'),
  ...reportsOption('reports/<stamp>/ and latest/'),
  ...junitOption('a test case per case (docs/ci.md)'),
  ...timeoutOption('longest wait at a barrier before a case is stuck'),
  isolation: choices('run each case at these levels too', ISOLATION_LEVELS, {
    refuse: (label, text) =>
      `${label} names an unknown isolation level ${shown(text)}; choose from: ${ISOLATION_LEVELS.join(', ')}`,
    ...notWithTarget('isolation'),
  }),
  permutations: choice(
    'interleavings: listed (the permutation each spec lists) or all orders of its steps',
    ['listed', 'all'],
    { default: 'listed' },
  ),
  ...durabilityOption(
    'on: every commit waits for its WAL flush, as in production; off: it does not',
    notWithTarget('durability'),
  ),
  ...paramOption(
    'a design knob, <id>.<knob>=v1,v2,…: one variant per value (list shows the knobs)',
    notWithTarget('param'),
  ),
  ...databaseOption('PostgreSQL server to use instead of the embedded one', notWithTarget('database-url')),
  ...postgresOption(
    "the embedded server's major; a list (15,18) runs the suite on each, with a version matrix",
    notWithTarget('postgres'),
  ),
  keep: flag('keep the run database for inspection', notWithTarget('keep')),
  threads: integer("worker threads that schedule the clients; the nodes are the scenario's", {
    min: 1,
    max: 64,
    absent: 'one per core',
    ...notWithTarget('threads'),
  }),
  jobs: integer('cases run side by side, each on a run database of its own; 1: one after the other', {
    min: 1,
    max: MAX_JOBS,
    default: DEFAULT_JOBS,
    ...notWithTarget('jobs'),
  }),
  'require-coverage': flag(
    'fail the run when a scenario is n/a for lack of an optional operation or pause point',
  ),
  ...CLUSTER_OPTIONS,
  ...TARGET_OPTIONS,
  ...configOption('run'),
};

export type RunArgs = ParsedOf<typeof OPTIONS>;

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

export const RUN = defineCommand({
  name: 'run',
  describe: 'run every selected scenario against every selected strategy and audit the invariants',
  options: OPTIONS,
  run: runCommand,
});
