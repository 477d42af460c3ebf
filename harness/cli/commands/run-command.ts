/** `reservebench run`: the cases, the tables, the reports, and the exit code of the gate. */

import { join } from 'node:path';
import { ISOLATION_LEVELS, type IsolationLevel } from '../../../strategies/contract.ts';
import { runTargetSuite, targetSection } from '../../blackbox/black-box-suite.ts';
import { HttpBlackBox } from '../../blackbox/http-black-box.ts';
import { Errors, EXIT } from '../../errors.ts';
import { exploreCase } from '../../explore/explore-case.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { outOfReach } from '../../explore/out-of-reach.ts';
import { MAX_SESSIONS } from '../../explore/program-arbitrary.ts';
import { wasInterrupted } from '../../interrupted.ts';
import { PAYMENT_DESIGN_IDS } from '../../registry/payment-registry.ts';
import { BUILT_IN_IDS } from '../../registry/registry.ts';
import { paymentCaseLine } from '../../report/payment-report.ts';
import { buildReport, type Report, writeReportFiles } from '../../report/report.ts';
import { runJunit } from '../../report/run-junit.ts';
import { caseLine, renderTerminal } from '../../report/terminal.ts';
import { findScenario, SCENARIOS } from '../../scenario/index.ts';
import { PAYMENT_SCENARIOS } from '../../scenario/payment/payment-scenarios.ts';
import type { InterleavingScenario, Scenario } from '../../scenario/scenario.ts';
import { DEFAULT_JOBS, type SuiteOptions } from '../../scenario/suite.ts';
import { runOnVersions } from '../../scenario/version-suite.ts';
import { failsTheRun } from '../../verdict/case-result.ts';
import { isCoverageGap } from '../../verdict/coverage.ts';
import { ExchangeLog } from '../../verdict/exchange-log.ts';
import { paymentFailsTheRun } from '../../verdict/payment-case-result.ts';
import { preflightTarget, targetArgs } from '../black-box-options.ts';
import { publishResults } from '../ci-results.ts';
import {
  boundedInteger,
  databaseUrlFrom,
  durabilityFrom,
  junitFile,
  list,
  MAX_CLIENTS,
  MAX_REPEAT,
  MAX_STOCK,
  paramSweepFrom,
  postgresMajorsFrom,
  reportsFolder,
  resolveStrategies,
  shown,
  single,
} from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, flag, value } from '../command-definition.ts';
import { selectContracts, withKnobVariants } from '../payment-selection.ts';
import { caseProgress } from '../progress.ts';
import { readSpecFiles } from '../spec-files.ts';
import { junitOption, reportOptions } from './report-options.ts';

/** More lanes than this would only queue on the connection room and the cores. */
const MAX_JOBS = 16;

const OPTIONS = {
  strategy: value(
    `strategy ids (${BUILT_IN_IDS.join(', ')}), payment design ids (${PAYMENT_DESIGN_IDS.join(', ')}) or module paths; comma-separated or repeated; default all`,
    { repeatable: true },
  ),
  scenario: value(
    `scenario ids (${[...SCENARIOS, ...PAYMENT_SCENARIOS].map((s) => s.id).join(', ')}), or explore; default all, and explore`,
    { repeatable: true },
  ),
  spec: value(
    'a strategy spec to run as a scenario (a finding the explorer wrote); one of PAY steps runs against the payment designs',
    {
      repeatable: true,
    },
  ),
  'explore-budget': value(
    `random programs the explorer tries per design after its sweep (default ${EXPLORE_DEFAULTS.perDesignInRun}; 0: no exploration)`,
  ),
  'explore-seed': value(
    `the seed of the default run's exploration (default ${EXPLORE_DEFAULTS.seed}); the same seed, the same programs`,
  ),
  clients: value(`virtual clients per case, 1–${MAX_CLIENTS} (default: the fixture's)`),
  stock: value("units of the first sku (default: the fixture's)"),
  repeat: value('run each case this many times (intermittent bugs)'),
  verbose: flag('a line for every case as it finishes, not only for those that need attention'),
  ...reportOptions('reports/<stamp>/ and latest/'),
  ...junitOption('a test case per case (docs/ci.md)'),
  keep: flag('keep the run database for inspection'),
  'timeout-ms': value('longest wait at a barrier before a case is stuck (60000)'),
  threads: value(
    "worker threads that schedule the clients, 1–64 (default: one per core); the nodes are the scenario's",
  ),
  jobs: value(
    `cases run side by side, 1–${MAX_JOBS}, each on a run database of its own (default ${DEFAULT_JOBS}); 1: one after the other`,
  ),
  isolation: value('run each case at these levels too: read-committed, repeatable-read, serializable', {
    repeatable: true,
  }),
  permutations: value(
    'interleavings: listed (the permutation each spec lists, default) or all orders of its steps',
  ),
  durability: value('on (default): every commit waits for its WAL flush, as in production; off: it does not'),
  param: value('a design knob, <id>.<knob>=v1,v2,…: one variant per value (list shows the knobs)', {
    repeatable: true,
  }),
  postgres: value(
    "the embedded server's major, 14–18 (default 18); a list (15,18) runs the suite on each, with a version matrix",
    { repeatable: true },
  ),
  'require-coverage': flag(
    'fail the run when a scenario is n/a for lack of an optional operation or pause point',
  ),
  target: value(
    'drive a service speaking the reservation API (docs/http-api.md) instead of strategies: base URLs, one per node',
    { repeatable: true },
  ),
  'target-setup': value(
    'command run before each case to load its stock (RESERVEBENCH_STOCK, JSON); default POST /admin/reset',
  ),
  'target-restart': value(
    'command that restarts node RESERVEBENCH_NODE (1-based); without it restart scenarios are n/a',
  ),
  'target-expect': value(
    'hold (default) or violate: the target is a known-unsafe service, caught by --caught-by',
  ),
  'caught-by': value(
    'with --target-expect violate: scenario:check pairs that must catch it (contention:oversold)',
    { repeatable: true },
  ),
};

export type RunArgs = ArgsOf<typeof OPTIONS>;

function isolationLevel(value: string): IsolationLevel {
  const level = ISOLATION_LEVELS.find((l) => l === value);
  if (!level)
    throw Errors.badInput(
      `unknown isolation level ${shown(value)}; choose from: ${ISOLATION_LEVELS.join(', ')}`,
    );
  return level;
}

function permutationsFrom(value: unknown): 'listed' | 'all' {
  const text = single('permutations', value) ?? 'listed';
  if (text === 'listed' || text === 'all') return text;
  throw Errors.badInput(`--permutations must be listed or all, got ${shown(text)}`);
}

/** The --target settings, or undefined without --target; the options a target has no use for are refused. */
function targetOf(args: RunArgs, timeoutMs: number) {
  return targetArgs(
    {
      ...args,
      strategy: args.strategy,
      isolation: args.isolation,
      'database-url': args['database-url'],
      keep: args.keep,
      threads: args.threads,
      jobs: args.jobs,
      durability: args.durability,
      param: args.param,
      postgres: args.postgres,
    },
    timeoutMs,
  );
}

export async function runCommand(args: RunArgs): Promise<number> {
  const clients = boundedInteger('clients', args.clients, 1, MAX_CLIENTS);
  const stock = boundedInteger('stock', args.stock, 0, MAX_STOCK);
  const repeat = boundedInteger('repeat', args.repeat, 1, MAX_REPEAT) ?? 1;
  const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
  const threads = boundedInteger('threads', args.threads, 1, 64);
  const jobs = boundedInteger('jobs', args.jobs, 1, MAX_JOBS);
  const permutations = permutationsFrom(args.permutations);
  const isolation = list('isolation', args.isolation).map(isolationLevel);
  const target = targetOf(args, timeoutMs);
  const strategyNames = list('strategy', args.strategy);
  const specs = readSpecFiles(list('spec', args.spec), strategyNames);
  const contracts = await selectContracts(strategyNames, list('scenario', args.scenario), specs);
  const scenarios = reservationScenarios(contracts, specs.reservation);
  const exploreBudget =
    boundedInteger('explore-budget', args['explore-budget'], 0, 100_000) ?? EXPLORE_DEFAULTS.perDesignInRun;
  const exploreSeed =
    boundedInteger('explore-seed', args['explore-seed'], 0, 2 ** 31 - 1) ?? EXPLORE_DEFAULTS.seed;
  const explores =
    exploreBudget > 0 && exploresDesigns(contracts, specs.reservation.length + specs.payment.length);
  // Merged over each scenario's input: an option not given must not be there at all.
  const overrides = {
    ...(clients !== undefined ? { clients } : {}),
    ...(stock !== undefined ? { stock } : {}),
  };
  if (target) return runAgainstTarget(target, { ...args, scenarios, overrides, repeat, timeoutMs });
  const databaseUrl = databaseUrlFrom(args);
  const majors = postgresMajorsFrom(args.postgres, databaseUrl);
  const swept = withKnobVariants(
    contracts.noReservationStrategy ? [] : await resolveStrategies(contracts.strategyNames),
    contracts.payments.designs,
    paramSweepFrom(args.param),
  );
  const { strategies } = swept;
  const payments = { ...contracts.payments, designs: swept.payments };
  const reports = reportsFolder(args.reports);
  const junit = junitFile(args.junit);
  const progress = args.json ? undefined : caseLines(args.verbose, args['require-coverage']);

  const result = await runOnVersions(
    {
      strategies,
      scenarios,
      ...(explores ? { explore: explorer(exploreBudget, exploreSeed, reports) } : {}),
      payments,
      overrides,
      repeat,
      keep: args.keep,
      timeoutMs,
      requireCoverage: args['require-coverage'],
      permutations,
      threads,
      jobs,
      ...(isolation.length > 0 ? { isolation } : {}),
      databaseUrl,
      durability: durabilityFrom(args.durability),
      ...progress?.told,
    },
    majors,
  );
  progress?.stop();
  const report = buildReport(
    result,
    strategies.map((r) => r.strategy),
    payments.designs.map((r) => r.design),
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

/** The reservation scenarios a run drives: those named and the --spec files, or all when none is named. */
function reservationScenarios(
  contracts: { scenarioIds: readonly string[]; noReservationScenario: boolean },
  specs: readonly InterleavingScenario[],
): Scenario[] {
  if (contracts.noReservationScenario) return [];
  const named = contracts.scenarioIds.filter((id) => id !== 'explore').map(findScenario);
  return contracts.scenarioIds.length + specs.length > 0 ? [...named, ...specs] : [...SCENARIOS];
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
function explorer(programs: number, seed: number, reports: string): NonNullable<SuiteOptions['explore']> {
  return {
    connections: MAX_SESSIONS,
    run: (db, ref, settings) =>
      exploreCase(
        db,
        ref,
        { ...settings, timeoutMs: Math.min(settings.timeoutMs, EXPLORE_DEFAULTS.timeoutMs) },
        {
          seed,
          budget: { programs, shrinkRuns: EXPLORE_DEFAULTS.shrinkRunsInRun },
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
    repeat: number;
    timeoutMs: number;
  },
): Promise<number> {
  const log = new ExchangeLog();
  const target = new HttpBlackBox(await preflightTarget(given, log), log);
  const progress = options.json ? undefined : caseLines(options.verbose, options['require-coverage']);
  // Only once the service answered as the API says: a refused target leaves nothing behind.
  const reports = reportsFolder(options.reports);
  const junit = junitFile(options.junit);
  const result = await runTargetSuite({
    target,
    scenarios: options.scenarios,
    overrides: options.overrides,
    repeat: options.repeat,
    timeoutMs: options.timeoutMs,
    requireCoverage: options['require-coverage'],
    ...(progress?.told.onCase ? { onCase: progress.told.onCase } : {}),
  });
  progress?.stop();
  const report = { ...buildReport(result, [target.strategy]), target: targetSection(target, result.cases) };
  writeReport(reports, report, { json: options.json, junit });
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}

export const RUN = defineCommand({
  name: 'run',
  describe: 'run every selected scenario against every selected strategy and audit the invariants',
  options: OPTIONS,
  run: runCommand,
});
