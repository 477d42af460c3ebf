/**
 * The options of `reservebench explore`, declared once (command-definition.ts), apart from its work
 * (explore-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { Errors } from '../../errors.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { MAX_SEED, shown, wholeNumber } from '../cli-arguments.ts';
import type { ParsedOf } from '../command-definition.ts';
import { choice, integer, parsed } from '../option-types.ts';
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

export const EXPLORE_OPTIONS = {
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

export type ExploreArgs = ParsedOf<typeof EXPLORE_OPTIONS>;
