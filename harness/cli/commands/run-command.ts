/** `reservebench run`: the cases, the tables, the reports, and the exit code of the gate. */

import { join } from 'node:path';
import { ISOLATION_LEVELS } from '../../../strategies/contract.ts';
import { runTargetSuite, targetSection } from '../../blackbox/black-box-suite.ts';
import { HttpBlackBox } from '../../blackbox/http-black-box.ts';
import { EXIT } from '../../errors.ts';
import { exploreCase } from '../../explore/explore-case.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { EXPLORE_SESSIONS } from '../../explore/explorer.ts';
import { outOfReach } from '../../explore/out-of-reach.ts';
import { wasInterrupted } from '../../interrupted.ts';
import { PAYMENT_DESIGN_IDS } from '../../registry/payment-registry.ts';
import { BUILT_IN_IDS } from '../../registry/registry.ts';
import { parseParamSweep } from '../../registry/strategy-variants.ts';
import { paymentCaseLine } from '../../report/payment-report.ts';
import { buildReport, type Report, writeReportFiles } from '../../report/report.ts';
import { runJunit } from '../../report/run-junit.ts';
import { caseLine, renderTerminal } from '../../report/terminal.ts';
import { findScenario, SCENARIOS, scenariosOfDefaultRun } from '../../scenario/index.ts';
import { PAYMENT_SCENARIOS } from '../../scenario/payment/payment-scenarios.ts';
import type { InterleavingScenario, Scenario } from '../../scenario/scenario.ts';
import { DEFAULT_JOBS, type SuiteOptions } from '../../scenario/suite.ts';
import { runOnVersions } from '../../scenario/version-suite.ts';
import { failsTheRun } from '../../verdict/case-result.ts';
import { isCoverageGap } from '../../verdict/coverage.ts';
import { ExchangeLog } from '../../verdict/exchange-log.ts';
import { paymentFailsTheRun } from '../../verdict/payment-case-result.ts';
import { notWithTarget, preflightTarget, TARGET_OPTIONS, targetArgs } from '../black-box-options.ts';
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
  resolveStrategies,
  shown,
} from '../cli-arguments.ts';
import { CLUSTER_OPTIONS, clusterFrom } from '../cluster-options.ts';
import { type CommandContext, defineCommand, flag, type ParsedOf } from '../command-definition.ts';
import { choice, choices, integer, texts } from '../option-types.ts';
import { selectContracts, withKnobVariants } from '../payment-selection.ts';
import { caseProgress } from '../progress.ts';
import { readSpecFiles } from '../spec-files.ts';
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
    `strategy ids (${BUILT_IN_IDS.join(', ')}), payment design ids (${PAYMENT_DESIGN_IDS.join(', ')}) or module paths`,
    { form: 'ID|PATH,…', absent: 'all, of both contracts', ...notWithTarget('strategy') },
  ),
  scenario: texts(
    `scenario ids (${[...SCENARIOS, ...PAYMENT_SCENARIOS].map((s) => s.id).join(', ')}), or explore`,
    { form: 'ID,…', absent: 'all, then every design explored' },
  ),
  spec: texts(
    'a strategy spec to run as a scenario (a finding the explorer wrote); one of PAY steps runs against the payment designs',
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
  const specs = readSpecFiles(args.spec, args.strategy);
  const contracts = await selectContracts(args.strategy, args.scenario, specs);
  const scenarios = reservationScenarios(contracts, specs.reservation, args.cluster !== undefined);
  const exploreBudget = args['explore-budget'];
  const explores =
    exploreBudget > 0 && exploresDesigns(contracts, specs.reservation.length + specs.payment.length);
  // Merged over each scenario's input: an option not given must not be there at all.
  const overrides = {
    ...(args.clients !== undefined ? { clients: args.clients } : {}),
    ...(args.stock !== undefined ? { stock: args.stock } : {}),
  };
  if (target) return runAgainstTarget(target, { ...args, scenarios, overrides }, context);
  const databaseUrl = databaseUrlFrom(args['database-url']);
  const majors = postgresMajorsFrom(args.postgres, databaseUrl);
  const swept = withKnobVariants(
    contracts.noReservationStrategy ? [] : await resolveStrategies(contracts.strategyNames),
    contracts.payments.designs,
    parseParamSweep(args.param),
  );
  const { strategies } = swept;
  const payments = { ...contracts.payments, designs: swept.payments };
  const reports = reportsFolder(args.reports, context.label('reports'));
  const junit = args.junit === undefined ? undefined : junitFile(args.junit, context.label('junit'));
  const progress = args.json ? undefined : caseLines(args.verbose, args['require-coverage']);

  const result = await runOnVersions(
    {
      strategies,
      scenarios,
      ...(explores ? { explore: explorer(exploreBudget, args['explore-seed'], reports) } : {}),
      payments,
      overrides,
      repeat: args.repeat,
      keep: args.keep,
      timeoutMs: args['timeout-ms'],
      requireCoverage: args['require-coverage'],
      permutations: args.permutations,
      threads: args.threads,
      jobs: args.jobs,
      ...(args.isolation.length > 0 ? { isolation: args.isolation } : {}),
      databaseUrl,
      durability: args.durability,
      cluster: clusterFrom(args, scenarios),
      ...progress?.told,
    },
    majors,
  );
  progress?.stop();
  const report = buildReport(
    result,
    strategies.map((r) => r.strategy),
    payments.designs.map((r) => r.design),
    context.configuration,
  );
  writeReport(reports, report, { json: args.json, junit });
  for (const line of result.kept) process.stderr.write(`${line}\n`);
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
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
): { told: Pick<SuiteOptions, 'onCase' | 'onPaymentCase' | 'onPlan'>; stop(): void } {
  const bar = caseProgress();
  const told = (id: string, fails: boolean, shown: boolean, line: () => string) => {
    if (wasInterrupted()) return;
    bar.done(id, fails, shown ? line() : undefined);
  };
  return {
    told: {
      onPlan: (items) => bar.plan(items),
      onCase: (c) => {
        const fails = failsTheRun(c) || (requireCoverage && isCoverageGap(c));
        told(c.id, fails, fails || (verbose && c.status !== 'n/a'), () => caseLine(c));
      },
      onPaymentCase: (c) => {
        const fails = paymentFailsTheRun(c);
        told(c.id, fails, fails || (verbose && c.status !== 'n/a'), () => paymentCaseLine(c));
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

/**
 * The reservation scenarios a run drives: those named and the --spec files, or all when none is named —
 * the cluster scenarios among them only when the run was given `--cluster` (each brings up a cluster).
 */
function reservationScenarios(
  contracts: { scenarioIds: readonly string[]; noReservationScenario: boolean },
  specs: readonly InterleavingScenario[],
  withClusters: boolean,
): Scenario[] {
  if (contracts.noReservationScenario) return [];
  const named = contracts.scenarioIds.filter((id) => id !== 'explore').map(findScenario);
  if (contracts.scenarioIds.length + specs.length > 0) return [...named, ...specs];
  return scenariosOfDefaultRun(withClusters);
}

/** Whether the run explores its designs: `--scenario explore`, or nothing named (reservation designs only). */
function exploresDesigns(
  contracts: { scenarioIds: readonly string[]; noReservationScenario: boolean },
  specs: number,
): boolean {
  const { scenarioIds } = contracts;
  if (contracts.noReservationScenario) return false;
  return scenarioIds.includes('explore') || scenarioIds.length + specs === 0;
}

/** The default run's exploration: every design, a fixed seed, a budget counted in programs. */
function explorer(scope: number, seed: number, reports: string): NonNullable<SuiteOptions['explore']> {
  return {
    connections: EXPLORE_SESSIONS,
    run: (db, ref, settings) =>
      exploreCase(
        db,
        ref,
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
          outOfReach: outOfReach(ref.strategy, SCENARIOS),
        },
      ),
  };
}

/** `run --target`: the service is asked whether it speaks the API first, then every case runs against it. */
async function runAgainstTarget(
  given: NonNullable<ReturnType<typeof targetArgs>>,
  options: RunArgs & {
    scenarios: Parameters<typeof runTargetSuite>[0]['scenarios'];
    overrides: Parameters<typeof runTargetSuite>[0]['overrides'];
  },
  context: CommandContext,
): Promise<number> {
  const log = new ExchangeLog();
  const target = new HttpBlackBox(await preflightTarget(given, log), log);
  const progress = options.json ? undefined : caseLines(options.verbose, options['require-coverage']);
  // Only once the service answered as the API says: a refused target leaves nothing behind.
  const reports = reportsFolder(options.reports, context.label('reports'));
  const junit = options.junit === undefined ? undefined : junitFile(options.junit, context.label('junit'));
  const result = await runTargetSuite({
    target,
    scenarios: options.scenarios,
    overrides: options.overrides,
    repeat: options.repeat,
    timeoutMs: options['timeout-ms'],
    requireCoverage: options['require-coverage'],
    ...(progress?.told.onCase ? { onCase: progress.told.onCase } : {}),
  });
  progress?.stop();
  const report = {
    ...buildReport(result, [target.strategy], [], context.configuration),
    target: targetSection(target, result.cases),
  };
  writeReport(reports, report, { json: options.json, junit });
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}

export const RUN = defineCommand({
  name: 'run',
  describe: 'run every selected scenario against every selected strategy and audit the invariants',
  options: OPTIONS,
  run: runCommand,
});
