/**
 * Issue 13, arguments: a value that used to mean a default in disguise (an empty string, a hex number, a
 * negative admission read as flags, a reports folder that cannot be written, a flag given a value) is
 * refused before anything starts — exit 2, one line naming the option and the value, no embedded server,
 * nothing written.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oneLineProblem, runBounded, UNREACHABLE_URL } from './bounded-cli.ts';
import { helpListing } from './cli-help.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reservebench-args-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder\n');
const SPEC = 'specs/nowait.spec';

async function expectRefused(args: string[], message: RegExp, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const run = await runBounded(args, { env });
  expect(run.timedOut, `${run.stderr}`).toBe(false);
  expect(run.stderr).toMatch(message);
  expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
  expect(run.code).toBe(2);
  expect(run.leftInTmp).toEqual([]);
}

describe('odd values are refused, never read as a default', () => {
  it.each([
    [['run', '--stock', ''], /--stock must be a whole number from 0 to 1000000, got ""/],
    [['run', '--clients', '0x10'], /--clients must be a whole number from 1 to 250, got "0x10"/],
    [['run', '--clients', '1e1'], /--clients .* got "1e1"/],
    [['run', '--repeat', ' 2'], /--repeat .* got " 2"/],
    [['run', '--timeout-ms', '+500'], /--timeout-ms .* got "\+500"/],
    [['run', '--strategy', ''], /--strategy must not be empty, got ""/],
    [['run', '--strategy', 'hot-row,'], /--strategy has an empty item in "hot-row,"/],
    [['run', '--scenario', ''], /--scenario must not be empty, got ""/],
    [['run', '--isolation', ''], /--isolation must not be empty, got ""/],
    [['run', '--stock', '1', '--stock', '2'], /--stock is given more than once \("1", "2"\)/],
    [['bench', '--admission', '-1:8'], /--admission must be LIMIT:WAITING \(e\.g\. 4:8\), .*got "-1:8"/],
    [['bench', '--clients', '4,,16'], /--clients has an empty item in "4,,16"/],
    [['serve', '--admission', '-1:8'], /--admission must be LIMIT:WAITING \(e\.g\. 4:8\), .*got "-1:8"/],
    [['serve', '--port', ''], /--port must be a whole number from 0 to 65535, got ""/],
    [['serve', '--work-ms', ''], /--work-ms must be a whole number from 0 to 60000, got ""/],
    [['run', '--json=yes'], /--json takes no value, got "yes"/],
    [['run', '--scenario', 'contention,contention'], /--scenario names "contention" twice/],
    [['spec', SPEC, '--expected', ''], /--expected must name a file, got ""/],
  ])('%j', async (args, message) => {
    await expectRefused([...args, '--database-url', UNREACHABLE_URL], message);
  });

  it.each([['run'], ['bench']])(
    '%j refuses an empty last item of a repeated list option (yargs drops a trailing --strategy=)',
    async (command) => {
      await expectRefused(
        [command, '--strategy', 'hot-row', '--strategy='],
        /--strategy must not be empty, got ""/,
        { DATABASE_URL: UNREACHABLE_URL },
      );
    },
  );

  it('refuses sql --command given twice instead of running one of them', async () => {
    await expectRefused(
      ['sql', '-c', 'SELECT 1', '--command', 'SELECT 2'],
      /--command is given more than once \("SELECT 1", "SELECT 2"\)/,
    );
  });

  it.each([['run'], ['bench'], ['serve'], ['spec', SPEC]])(
    '%j --database-url "" is refused instead of starting the embedded server',
    async (...command) => {
      await expectRefused(
        [...command, '--database-url', ''],
        /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL, got ""/,
      );
    },
  );

  it('refuses a --database-url that is not a URL', async () => {
    await expectRefused(
      ['run', '--database-url', 'localhost:5432'],
      /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL, got "localhost:5432"/,
    );
  });
});

describe('--reports is made and checked before the run starts', () => {
  it.each([
    ['a file', aFile, /--reports ".*" cannot be used: ".*a-file" is not a folder/],
    [
      'a folder under a file',
      join(aFile, 'below'),
      /--reports ".*" cannot be used: ".*a-file" is not a folder/,
    ],
    [
      'a folder under /proc',
      '/proc/reservebench-reports',
      /--reports "\/proc\/reservebench-reports" cannot be used: cannot create/,
    ],
    ['nothing', '', /--reports must name a folder, got ""/],
  ])('%s', async (_, folder, message) => {
    for (const command of ['run', 'bench']) {
      await expectRefused([command, '--reports', folder, '--database-url', UNREACHABLE_URL], message);
    }
  });

  it('creates a missing folder first, then meets the unreachable database (exit 3)', async () => {
    const folder = join(scratch, 'new', 'reports');
    const run = await runBounded(['run', '--reports', folder, '--database-url', UNREACHABLE_URL]);
    expect(run.code).toBe(3);
    expect(existsSync(folder)).toBe(true);
  });
});

describe('a flag given a value is refused, never read as false', () => {
  it.each([
    // `clean --dry-run=1` once removed a kept run: the value made the flag false.
    [['clean', '--dry-run=1'], /--dry-run takes no value, got "1"/],
    [['clean', '--dry-run=yes'], /--dry-run takes no value, got "yes"/],
    [['clean', '--dryRun=1'], /--dryRun takes no value, got "1"/],
    [['clean', '--dry-run='], /--dry-run takes no value, got ""/],
    [['run', '--json=yes'], /--json takes no value, got "yes"/],
    [['bench', '--json=1'], /--json takes no value, got "1"/],
    [['serve', '--log-json=on'], /--log-json takes no value, got "on"/],
    [['list', '--json=no'], /--json takes no value, got "no"/],
    [['compare', 'a.json', 'b.json', '--json=0'], /--json takes no value, got "0"/],
  ])('%j', async (args, message) => {
    await expectRefused(args, message);
  });

  it('holds for every flag of every command, as --help lists them', async () => {
    const listing = await helpListing();
    const flags = listing.flatMap(({ command, words, flags }) =>
      flags.map((name) => ({ name, args: [command, ...words.map((w) => `${w}.json`), `--${name}=yes`] })),
    );
    expect(flags.map((f) => f.args)).toContainEqual(['clean', '--dry-run=yes']);
    // Two children at a time, as in the fuzz test: both cores are used, and the test stays short.
    for (let i = 0; i < flags.length; i += 2) {
      await Promise.all(
        flags
          .slice(i, i + 2)
          .map(({ name, args }) => expectRefused(args, new RegExp(`--${name} takes no value, got "yes"`))),
      );
    }
  }, 120_000);
});
