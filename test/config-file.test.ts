/**
 * Issue 38, a run's configuration written down, through the command line: a bad `--config` file is exit 2
 * with one line naming the file and the field (a design module it names that cannot load, too), and `run --config reports/<stamp>/report.json` runs the same
 * cases to the same verdicts. test/config-resolve.test.ts reads configurations back in process.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RUN } from '../harness/cli/commands/run-command.ts';
import { resolveOptions } from '../harness/cli/resolve-options.ts';
import { oneLineProblem, type Refusal, runBounded, runRefusals } from './bounded-cli.ts';
import { configFiles, reportWith } from './config-files.ts';
import { runJson } from './run-cli.ts';

const files = configFiles();
afterAll(() => files.remove());
const { file } = files;
/** A design module the file names that does not load: the user never typed its path, the file did. */
const broken = join(files.folder, 'broken-design.ts');
writeFileSync(broken, 'export default {;\n');

describe('a bad config file → exit 2 with one line naming the file and the field', () => {
  const BAD: [string, RegExp][] = [
    [file({ clients: 300 }), /clients in ".*" must be a whole number from 1 to 250, got "300"/],
    [file({ clients: '5' }), /clients in ".*" must be a number, got "5"/],
    [file({ strategy: [1] }), /strategy in ".*" must be a string or a list of them, got \[1\]/],
    [file({ keep: 'yes' }), /keep in ".*" must be true or false, got "yes"/],
    [file({ durability: 'maybe' }), /durability in ".*" must be on or off, got "maybe"/],
    [file({ stock: 1, instances: 2 }), /--config ".*": "instances" is no option of run/],
    [file({ config: 'other.json' }), /--config ".*": "config" is no option of run/],
    [file('{"clients": 4,'), /--config ".*" is not JSON: /],
    [join(files.folder, 'missing.json'), /--config ".*missing\.json" cannot be read: ENOENT/],
    [file([1, 2]), /--config ".*" must hold a JSON object/],
    [
      file(reportWith({ command: 'bench', options: {} })),
      /is the configuration of "bench"; give it to `reservebench bench`/,
    ],
    [
      file({ ok: true, generatedAt: 'x', environment: {} }),
      /a report written before reports recorded their configuration/,
    ],
    [file({ 'target-setup': 'x' }), /target-setup in ".*" needs --target/],
  ];
  let answers: Refusal[] = [];
  beforeAll(async () => {
    ({ answers } = await runRefusals(BAD.map(([path]) => ({ args: ['run', '--config', path] }))));
  }, 120_000);

  it.each(BAD.map(([path, message], i) => [path, message, i] as const))('%s', (_path, message, i) => {
    const answer = answers[i];
    expect(answer?.code).toBe(2);
    expect(answer?.stderr).toMatch(message);
    expect(oneLineProblem(answer?.stderr ?? ''), answer?.stderr).toBe(true);
    expect(answer?.stdout).toBe('');
  });
});

describe('a design module a config file names that cannot load', () => {
  // Each in a process of its own: a plug-in once loaded guards the process's exits (plugin-exit.ts).
  it.each([
    [broken, /^reservebench: strategy in ".*": cannot load strategy module .*broken-design\.ts/],
    [
      join(files.folder, 'absent.ts'),
      /^reservebench: strategy in ".*": strategy module not found: .*absent\.ts/,
    ],
  ])('%s: exit 2, one line naming the file that named it', async (module, message) => {
    const answer = await runBounded(['run', '--config', file({ strategy: [module] })]);
    expect(answer.code, answer.stderr).toBe(2);
    expect(answer.stderr).toMatch(message);
    expect(oneLineProblem(answer.stderr), answer.stderr).toBe(true);
  });
});

describe("a relative design path in a config file is the file's, not the working folder's", () => {
  it('is read against the folder the file is in, ids and absolute paths as they are', () => {
    const path = file({ strategy: ['hot-row,./mine.ts', '../theirs.ts', '/opt/designs/abs.ts'] });
    expect(resolveOptions(RUN, { config: path }).values.strategy).toEqual([
      'hot-row',
      join(files.folder, 'mine.ts'),
      resolve(files.folder, '../theirs.ts'),
      '/opt/designs/abs.ts',
    ]);
  });

  it("is recorded absolute from the command line, so that the report's configuration runs from any folder", () => {
    const { configuration } = resolveOptions(RUN, { strategy: ['hot-row,./mine.ts'] }).context;
    expect(configuration.options.strategy).toEqual(['hot-row', resolve('mine.ts')]);
  });

  it('loads the module beside the file when run from another folder', async () => {
    // The broken module sits beside the file: reaching its syntax error shows that the path was found.
    const answer = await runBounded(['run', '--config', file({ strategy: ['./broken-design.ts'] })]);
    expect(answer.code, answer.stderr).toBe(2);
    expect(answer.stderr).toContain(`cannot load strategy module ${broken}`);
  });
});

describe('run --config reports/<stamp>/report.json', () => {
  it('runs the same cases to the same verdicts', async () => {
    const serverUrl = inject('serverUrl');
    const selection = [
      ...['--strategy', 'hot-row,check-then-act,payment-on-conflict'],
      ...['--scenario', 'contention,duplicate-key,payment-duplicates'],
    ];
    const first = await runJson(serverUrl, selection);
    expect(first.report.configuration?.options).toMatchObject({ strategy: expect.any(Array) });
    const again = await runJson(serverUrl, ['--config', file(first.report)]);
    const verdicts = (r: typeof first.report) => [
      ...r.cases.map((c) => [c.id, c.status]),
      ...r.payments.map((c) => [c.id, c.status]),
    ];
    expect(verdicts(again.report)).toEqual(verdicts(first.report));
    expect(verdicts(first.report).length).toBeGreaterThan(3);
    expect(again.run.code).toBe(first.run.code);
    const { reports: _, ...options } = again.report.configuration?.options ?? {};
    const { reports: __, ...before } = first.report.configuration?.options ?? {};
    expect(options).toEqual(before);
  }, 240_000);
});
