/**
 * `reservebench explore --strategy X [--seed S] [--budget 60s|N] [--random N] [--cluster embedded]`: programs of the design's contract
 * against one design of any contract with an explorer side, until one fails or the budget is spent
 * (docs/explore.md); a finding is shrunk, written as a spec and replayed. Exit 0 when the verdict holds (a
 * safe design: nothing found; a negative control: found), 1 when not.
 */

import { join } from 'node:path';
import { embeddedClusters } from '../../cluster/cluster-source.ts';
import { openRunDatabase } from '../../database/database.ts';
import { DEFAULT_POSTGRES, POSTGRES_MAJORS, type PostgresMajor } from '../../database/postgres-versions.ts';
import { Errors, EXIT } from '../../errors.ts';
import { exploreCase } from '../../explore/explore-case.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { exploredVariant } from '../../explore/explored-variant.ts';
import { caseLine } from '../../report/terminal.ts';
import { failsTheRun } from '../../verdict/case-result.ts';
import { databaseUrlFrom, MAX_SEED, reportsFolder, shown, wholeNumber } from '../cli-arguments.ts';
import { type CommandContext, defineCommand, type ParsedOf } from '../command-definition.ts';
import { contractOfDesign } from '../contract-selection.ts';
import { choice, integer, parsed } from '../option-types.ts';
import { progressBar } from '../progress.ts';
import {
  databaseOption,
  durabilityOption,
  oneStrategyOption,
  reportsOption,
  timeoutOption,
} from './shared-options.ts';

/**
 * `2000` programs of the exhaustive scope (then the sweep and the default number of random programs, which
 * `--random` overrides), or
 * `60s` / `5m` / `1500ms` of time for all three (then programs are not limited).
 */
export function readBudget(text: string, label: string): { scope: number; programs: number; ms?: number } {
  const time = /^(\d+)(ms|s|m)$/.exec(text);
  if (time) {
    const ms = Number(time[1]) * { ms: 1, s: 1000, m: 60_000 }[time[2] as 'ms' | 's' | 'm'];
    if (ms < 1 || ms > 24 * 3600_000)
      throw Errors.badInput(`${label} must be between 1 ms and 24 h, got ${shown(text)}`);
    return { scope: 10_000_000, programs: 1_000_000, ms };
  }
  return { scope: wholeNumber(text, label, 1, 10_000_000), programs: EXPLORE_DEFAULTS.programs };
}

const OPTIONS = {
  ...oneStrategyOption(
    'the strategy id or module path to explore',
    (_label, _text, count) => `explore takes exactly one --strategy, got ${count}`,
    { absent: 'none: one must be named' },
  ),
  seed: integer('the seed of the programs; the same seed explores the same programs', {
    min: 0,
    max: MAX_SEED,
    default: EXPLORE_DEFAULTS.seed,
  }),
  budget: parsed(
    `how long to explore: a number of programs of the exhaustive scope (the sweep before them, ${EXPLORE_DEFAULTS.programs} random programs after, or --random's), or a time like 60s or 5m for all of it`,
    {
      form: 'N|60s|5m',
      range: '1–10000000 programs, or 1 ms–24 h',
      default: String(EXPLORE_DEFAULTS.scopeInRun),
      read: readBudget,
    },
  ),
  random: integer('random programs after the scope, at most (a time budget may end them first)', {
    min: 0,
    max: 1_000_000,
    absent: `${EXPLORE_DEFAULTS.programs}; with a time --budget, as many as its time allows`,
  }),
  replays: integer("how many times a finding's spec is replayed from its file", {
    min: 0,
    max: 100,
    default: EXPLORE_DEFAULTS.replays,
  }),
  cluster: choice(
    'fail programs over on a synchronous cluster of their own, one per program (where the contract has failover programs)',
    ['embedded'] as const,
    { absent: 'no program fails over' },
  ),
  ...reportsOption('explore/<design>-seed<seed>.spec'),
  ...databaseOption(),
  ...durabilityOption('on: every commit waits for its WAL flush; off: it does not'),
  ...timeoutOption("longest a program's step may neither complete nor wait", EXPLORE_DEFAULTS.timeoutMs),
};

export type ExploreArgs = ParsedOf<typeof OPTIONS>;

/** The embedded cluster's major: the explored server's own where the package has it. */
function majorOf(serverVersionNum: number | undefined): PostgresMajor {
  const major = Math.floor((serverVersionNum ?? 0) / 10_000);
  return POSTGRES_MAJORS.find((m) => m === major) ?? DEFAULT_POSTGRES;
}

export async function exploreCommand(args: ExploreArgs, context: CommandContext): Promise<number> {
  if (args.strategy === undefined) throw Errors.badInput('explore takes exactly one --strategy, got 0');
  const { seed, replays } = args;
  const budget = args.random === undefined ? args.budget : { ...args.budget, programs: args.random };
  const timeoutMs = args['timeout-ms'];
  const databaseUrl = databaseUrlFrom(args['database-url']);
  const contract = await contractOfDesign(args.strategy);
  const side = contract.explore;
  if (!side) throw Errors.badInput(`the ${contract.id} contract's designs cannot be explored`);
  const loaded = await contract.designs.load(args.strategy);
  const ref = exploredVariant(contract.designs, loaded);
  const reports = reportsFolder(args.reports, context.label('reports'));
  const db = await openRunDatabase({ databaseUrl, durability: args.durability });
  const bar = progressBar(budget.ms === undefined ? budget.programs : 0, 'explore', 'programs');
  let failed = false;
  try {
    await contract.designs.checkInstall?.(db.admin, [ref]);
    const settings = {
      keepFailed: false,
      timeoutMs,
      permutations: 'listed' as const,
      ...(args.cluster ? { failoverCluster: embeddedClusters(majorOf(db.serverVersionNum), 'on') } : {}),
    };
    const target = { explore: side, ref, design: contract.designs.info(loaded).design };
    const result = await exploreCase(db, target, settings, {
      seed,
      budget: { ...budget, shrinkRuns: EXPLORE_DEFAULTS.shrinkRuns },
      specDir: join(reports, 'explore'),
      replays,
      onProgress: (p) => bar?.tick(p.shrinking ? 'shrinking a finding' : `${p.programs} run`),
    });
    bar?.stop();
    failed = failsTheRun(result);
    process.stdout.write(`${caseLine(contract, result)}\n`);
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
