/**
 * `reservebench explore --strategy X [--seed S] [--budget 60s|N]`: random programs against one design until
 * one fails or the budget is spent (docs/explore.md); a finding is shrunk, written as a spec and replayed.
 * Exit 0 when the verdict holds (a safe design: nothing found; a negative control: found), 1 when not.
 */

import { join } from 'node:path';
import { openRunDatabase } from '../../database/database.ts';
import { Errors, EXIT } from '../../errors.ts';
import { exploreCase } from '../../explore/explore-case.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { outOfReach } from '../../explore/out-of-reach.ts';
import { checkSqlDesignsInstall } from '../../registry/sql-design-check.ts';
import { caseLine } from '../../report/terminal.ts';
import { SCENARIOS } from '../../scenario/index.ts';
import { failsTheRun } from '../../verdict/case-result.ts';
import {
  boundedInteger,
  databaseUrlFrom,
  durabilityFrom,
  list,
  reportsFolder,
  resolveStrategies,
  shown,
  single,
} from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, value } from '../command-definition.ts';
import { progressBar } from '../progress.ts';

const OPTIONS = {
  strategy: value('the strategy id or module path to explore'),
  seed: value(
    `the seed of the programs (default ${EXPLORE_DEFAULTS.seed}); the same seed explores the same programs`,
  ),
  budget: value(
    `how long to explore: a number of programs of the exhaustive scope (${EXPLORE_DEFAULTS.scopeInRun} by default; then the sweep and ${EXPLORE_DEFAULTS.programs} random programs) or a time like 60s or 5m for all of it`,
  ),
  replays: value(
    `how many times a finding's spec is replayed from its file (default ${EXPLORE_DEFAULTS.replays})`,
  ),
  reports: value('where explore/<design>-seed<seed>.spec is written (default reports)'),
  'database-url': value('PostgreSQL server instead of the embedded one (also DATABASE_URL)'),
  durability: value('on (default): every commit waits for its WAL flush; off: it does not'),
  'timeout-ms': value(
    `longest a program's step may neither complete nor wait (default ${EXPLORE_DEFAULTS.timeoutMs})`,
  ),
};

export type ExploreArgs = ArgsOf<typeof OPTIONS>;

/**
 * `2000` programs of the exhaustive scope (then the sweep and the default number of random programs), or
 * `60s` / `5m` / `1500ms` of time for all three (then programs are not limited).
 */
export function exploreBudget(value: unknown): { scope: number; programs: number; ms?: number } {
  const text = single('budget', value);
  const programs = EXPLORE_DEFAULTS.programs;
  if (text === undefined) return { scope: EXPLORE_DEFAULTS.scopeInRun, programs };
  const time = /^(\d+)(ms|s|m)$/.exec(text);
  if (time) {
    const ms = Number(time[1]) * { ms: 1, s: 1000, m: 60_000 }[time[2] as 'ms' | 's' | 'm'];
    if (ms < 1 || ms > 24 * 3600_000)
      throw Errors.badInput(`--budget must be between 1 ms and 24 h, got ${shown(text)}`);
    return { scope: 10_000_000, programs: 1_000_000, ms };
  }
  const scope = boundedInteger('budget', text, 1, 10_000_000);
  if (scope === undefined)
    throw Errors.badInput(`--budget takes programs or a time (60s), got ${shown(text)}`);
  return { scope, programs };
}

export async function exploreCommand(args: ExploreArgs): Promise<number> {
  const names = list('strategy', args.strategy);
  if (names.length !== 1) throw Errors.badInput(`explore takes exactly one --strategy, got ${names.length}`);
  const seed = boundedInteger('seed', args.seed, 0, 2 ** 31 - 1) ?? EXPLORE_DEFAULTS.seed;
  const budget = exploreBudget(args.budget);
  const replays = boundedInteger('replays', args.replays, 0, 100) ?? EXPLORE_DEFAULTS.replays;
  const timeoutMs =
    boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? EXPLORE_DEFAULTS.timeoutMs;
  const databaseUrl = databaseUrlFrom(args);
  const [ref] = await resolveStrategies(names);
  if (!ref) throw Errors.badInput('explore needs a strategy');
  const reports = reportsFolder(args.reports);
  const db = await openRunDatabase({ databaseUrl, durability: durabilityFrom(args.durability) });
  const bar = progressBar(budget.ms === undefined ? budget.programs : 0, 'explore', 'programs');
  let failed = false;
  try {
    await checkSqlDesignsInstall(db.admin, [ref]);
    const settings = { keepFailed: false, timeoutMs, permutations: 'listed' as const };
    const result = await exploreCase(db, ref, settings, {
      seed,
      budget: { ...budget, shrinkRuns: EXPLORE_DEFAULTS.shrinkRuns },
      specDir: join(reports, 'explore'),
      replays,
      outOfReach: outOfReach(ref.strategy, SCENARIOS),
      onProgress: (p) => bar?.tick(p.shrinking ? 'shrinking a finding' : `${p.programs} run`),
    });
    bar?.stop();
    failed = failsTheRun(result);
    process.stdout.write(`${caseLine(result)}\n`);
  } finally {
    bar?.stop();
    await db.close({ keep: false });
  }
  return failed ? EXIT.expectationFailed : EXIT.ok;
}

export const EXPLORE = defineCommand({
  name: 'explore',
  describe: 'generate random programs against one design, shrink what fails and write it as a spec',
  options: OPTIONS,
  run: exploreCommand,
});
