/**
 * The options of `reservebench bench`, declared once (command-definition.ts), apart from its work
 * (bench-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { ARRIVAL_KINDS } from '../../bench/arrivals.ts';
import { DEFAULT_DURABILITY, DURABILITIES } from '../../database/durability.ts';
import { MAX_AGENTS } from '../agent-options.ts';
import { MAX_CLIENTS, MAX_SEED } from '../cli-arguments.ts';
import { flag, type ParsedOf } from '../command-definition.ts';
import { choice, choices, integer, integers, texts } from '../option-types.ts';
import {
  DEFAULT_BURST_STOCK,
  MAX_BURST,
  MAX_BURST_PROCESSES,
  MAX_RETRIES,
  NOT_WITH_BURST,
} from './burst-limits.ts';
import {
  admissionOption,
  configOption,
  databaseOption,
  paramOption,
  postgresOption,
  reportsOption,
  timeoutOption,
} from './shared-options.ts';

export const ONE_SERVER = 'for a bench: its series compare designs on one server';

export const DEFAULT_BENCH_CLIENTS = [1, 4, 16, 64, 150];
/** The fewest that give an interval at all and a median that one odd run cannot move. */
export const DEFAULT_BENCH_TRIALS = 3;
/** Enough that the fastest design never sells out in a series. */
export const DEFAULT_BENCH_STOCK = 1_000_000;

/** The open model's bounds, far past what any machine serves: asking for an overload is valid. */
export const MAX_RATE = 1_000_000;
export const MAX_LATENCY_LIMIT_MS = 600_000;

const notWithBurst = { burst: NOT_WITH_BURST };
const needsRate = { anyOf: ['rate'], why: 'the open model' };

export const BENCH_OPTIONS = {
  strategy: texts(
    'design ids or module paths, all of one contract; designs of a contract other than the first run the closed loop only',
    { form: 'ID|PATH,…', absent: 'every built-in design of the first contract with expect: hold' },
  ),
  clients: integers('client counts, a series each; with --burst: one, the pool of connections', {
    min: 1,
    max: MAX_CLIENTS,
    absent: `${DEFAULT_BENCH_CLIENTS.join(',')}; with --burst: min(N, 150)`,
  }),
  ...admissionOption('also run each count behind bounded admission (e.g. 4:8)', {}),
  'wait-ms': integer('longest wait for an admission permit', {
    min: 1,
    max: 60_000,
    default: 400,
    needs: [{ anyOf: ['admission'] }],
  }),
  'warmup-ms': integer('unmeasured warm-up per series', {
    min: 0,
    max: 600_000,
    default: 1_000,
    excludes: notWithBurst,
  }),
  'duration-ms': integer('measured window per series', {
    min: 100,
    max: 3_600_000,
    default: 3_000,
    excludes: notWithBurst,
  }),
  trials: integer('runs of every series, interleaved with the others, for a median and an interval', {
    min: 1,
    max: 100,
    default: DEFAULT_BENCH_TRIALS,
    excludes: notWithBurst,
  }),
  threads: integer('worker threads for the clients', { min: 1, max: 64, absent: 'one per core' }),
  stock: integer(
    'units per series, enough never to sell out; with --burst: the units on sale (at most 10000)',
    {
      min: 1,
      max: 2_000_000,
      absent: `${DEFAULT_BENCH_STOCK}; with --burst: ${DEFAULT_BURST_STOCK}`,
    },
  ),
  ...paramOption('a design knob to sweep, <id>.<knob>=v1,v2,…: a series per value (list shows the knobs)'),
  rate: integers(
    'open model: arrivals per second, a series per rate; the clients are the pool that serves them',
    { min: 1, max: MAX_RATE, excludes: { admission: '', ...notWithBurst } },
  ),
  arrivals: choice('constant spacing, or poisson (exponential gaps from --seed)', ARRIVAL_KINDS, {
    default: 'constant',
    needs: [needsRate],
    excludes: notWithBurst,
  }),
  seed: integer(
    "with --arrivals poisson: the seed of the schedule; with --burst: of the clients' 503 backoff",
    {
      min: 0,
      max: MAX_SEED,
      absent: '1',
      needs: [{ anyOf: ['rate', 'burst'] }],
    },
  ),
  burst: integers(
    'flash sale: N distinct users each reserving once, all released at one instant; a row per N',
    { min: 1, max: MAX_BURST },
  ),
  processes: integer('the processes the requests of a burst are spread over', {
    min: 1,
    max: MAX_BURST_PROCESSES,
    absent: 'one per 2500 requests',
    needs: [{ anyOf: ['burst'] }],
  }),
  retries: integer("a burst's client's most retries after a 503 before it gives up", {
    min: 0,
    max: MAX_RETRIES,
    absent: '30',
    needs: [{ anyOf: ['burst'] }, { anyOf: ['admission'], why: 'only the gate answers 503' }],
  }),
  'latency-limit': integer('answers slower than this many ms are late, arrivals already later are dropped', {
    min: 1,
    max: MAX_LATENCY_LIMIT_MS,
    needs: [needsRate],
    excludes: notWithBurst,
  }),
  durability: choices(
    'on: every commit waits for its WAL flush, as in production; off: it does not; on,off: both, and the cost',
    DURABILITIES,
    { default: [DEFAULT_DURABILITY] },
  ),
  ...postgresOption("the embedded server's major (one: a bench compares designs on one server)"),
  agents: integer(
    'load agents: every series (or burst) split over N agent processes, client i, arrival i and burst request i to agent i mod N; started here unless --agents-external (docs/scale.md)',
    {
      min: 1,
      max: MAX_AGENTS,
      excludes: {
        admission:
          'each agent would have a gate of its own (N × LIMIT inside); a shared gate is serve --gate postgres',
        processes: 'with --burst each agent is one process of the burst',
      },
    },
  ),
  'agents-external': flag(
    'you start the agents (reservebench agent, over ssh, in a container, a CI job); the bench prints their command and waits',
    { needs: [{ anyOf: ['agents'] }] },
  ),
  json: flag('print the JSON report on stdout, no tables'),
  ...databaseOption(),
  ...reportsOption('reports/<stamp>-bench/ and latest-bench/'),
  ...timeoutOption(
    'longest wait for the clients to connect; with --burst also for every answer after the release',
  ),
  ...configOption('bench'),
};

export type BenchArgs = ParsedOf<typeof BENCH_OPTIONS>;
