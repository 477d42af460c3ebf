/** What `reservebench explore` does (its options: explore-options.ts), imported only when it runs. */

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
import { databaseUrlFrom, reportsFolder } from '../cli-arguments.ts';
import type { CommandContext } from '../command-definition.ts';
import { contractOfDesign } from '../contract-selection.ts';
import { progressBar } from '../progress.ts';
import type { ExploreArgs } from './explore-options.ts';

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
