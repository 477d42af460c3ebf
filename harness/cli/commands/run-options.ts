/**
 * The options of `reservebench run`, declared once (command-definition.ts), apart from its work
 * (run-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { ISOLATION_LEVELS } from '../../../strategies/contract.ts';
import { CATALOGS } from '../../contracts/catalogs.ts';
import { EXPLORE_DEFAULTS } from '../../explore/explore-defaults.ts';
import { DEFAULT_JOBS } from '../../suite/default-jobs.ts';
import { notWithTarget, TARGET_OPTIONS } from '../black-box-options.ts';
import { MAX_CLIENTS, MAX_REPEAT, MAX_SEED, MAX_STOCK, shown } from '../cli-arguments.ts';
import { CLUSTER_OPTIONS } from '../cluster-options.ts';
import { flag, type ParsedOf } from '../command-definition.ts';
import { choice, choices, integer, texts } from '../option-types.ts';
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

export const RUN_OPTIONS = {
  strategy: texts(
    `design ids (${CATALOGS.map((c) => `${c.id}: ${Object.keys(c.builtInDesigns).join(', ')}`).join('; ')}) or module paths`,
    { form: 'ID|PATH,…', absent: 'all, of every contract', ...notWithTarget('strategy') },
  ),
  scenario: texts(`scenario ids (${CATALOGS.flatMap((c) => c.scenarioIds).join(', ')}), or explore`, {
    form: 'ID,…',
    absent: 'all, then every design explored',
  }),
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

export type RunArgs = ParsedOf<typeof RUN_OPTIONS>;
