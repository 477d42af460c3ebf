/**
 * The whole default run (`reservebench run`: every built-in strategy over every scenario), run once per
 * `vitest` invocation by the first test file that asks for it and read back by the others from the test
 * run's scratch directory. Several files judge a design across every scenario; running them all on their
 * own repeated most of the default run, and the test command must stay within its time budget.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { scenariosOfDefaultRun } from '../harness/contract/contract.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import { EXPLORE_DEFAULTS } from '../harness/explore/explore-defaults.ts';
import type { Report } from '../harness/report/report.ts';
import { type CliRun, runJson } from './run-cli.ts';

/**
 * The timeout of a test that reads the default run: the first one to ask runs all of it (every design of
 * every contract over every scenario, and each design explored), which takes minutes on 2 cores and more
 * while other test files share them.
 */
export const DEFAULT_RUN_TIMEOUT_MS = 1_200_000;

/** The reservation scenarios a run without `--cluster` drives. */
export const SCENARIOS_WITHOUT_CLUSTER = scenariosOfDefaultRun(RESERVATION.scenarios, false);

export interface DefaultRun {
  run: CliRun;
  report: Report;
}

/** Where the default run writes its reports, kept for the test run: the explorer's specs among them. */
export function defaultRunReports(): string {
  return join(inject('scratch'), 'default-run-reports');
}

export async function defaultRun(): Promise<DefaultRun> {
  const cache = join(inject('scratch'), 'default-run.json');
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as DefaultRun;
  // The default run's own budget, named: runJson explores only when asked.
  const budget = String(EXPLORE_DEFAULTS.scopeInRun);
  const result = await runJson(inject('serverUrl'), ['--explore-budget', budget], {}, defaultRunReports());
  writeFileSync(cache, JSON.stringify(result));
  return result;
}

/**
 * The default run, its scenario cases narrowed to these strategies (the exit code and `ok` stay the whole
 * run's); the `explore/<design>` cases are read with exploredInDefaultRun.
 */
export async function defaultRunOf(strategies: readonly string[]): Promise<DefaultRun> {
  const { run, report } = await defaultRun();
  const cases = report.cases.filter((c) => c.scenario !== 'explore' && strategies.includes(c.strategy));
  return { run, report: { ...report, cases } };
}

/** The default run's explore cases, one per design. */
export async function exploredInDefaultRun(): Promise<DefaultRun> {
  const { run, report } = await defaultRun();
  return { run, report: { ...report, cases: report.cases.filter((c) => c.scenario === 'explore') } };
}
