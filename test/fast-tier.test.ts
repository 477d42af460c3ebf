/**
 * vitest.fast.config.ts runs its files without the global setup that starts the embedded server, so it
 * lists exactly the test files that need no database server, and its fast tier only those that also start
 * no command line per case. What a file needs is read from its source: the signs below are every way a
 * test file reaches a server or the command line today; a new way needs a new sign.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fastConfig, { COMMAND_LINE_TEST_FILES, FAST_TEST_FILES } from '../vitest.fast.config.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** Signs in a test file's source that it reaches a PostgreSQL server, and what each means. */
const SERVER_SIGNS: readonly (readonly [RegExp, string])[] = [
  [/\binject\(/, 'takes the shared server of the global setup (inject)'],
  [/from '\.\/(db-fixture|default-run|run-cli|served)\.ts'/, 'uses a test helper that runs against a server'],
  [/spawn\(\s*process\.execPath,\s*cliArgv\(/, 'starts the command line, which starts a server'],
  [/from ['"]pg['"]/, 'connects with pg'],
  [/embedded-server\.ts['"]/, 'starts an embedded server itself'],
  [/\b\w*[eE]mbedded\w*Cluster\(/, 'starts an embedded cluster itself'],
  [/vitest\.config\.ts|global[-]setup/, 'runs vitest under the global setup, which starts a server'],
];

const COMMAND_LINE_SIGN = /from '\.\/bounded-cli\.ts'/;

function signs(file: string): { server: string[]; commandLine: boolean } {
  const source = readFileSync(`${ROOT}${file}`, 'utf8');
  return {
    server: SERVER_SIGNS.filter(([sign]) => sign.test(source)).map(([, meaning]) => `${file}: ${meaning}`),
    commandLine: COMMAND_LINE_SIGN.test(source),
  };
}

const TEST_FILES = readdirSync(`${ROOT}test`)
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name}`)
  .sort();
const SERVERLESS = TEST_FILES.filter((file) => signs(file).server.length === 0);

describe('the tests that need no database server (vitest.fast.config.ts)', () => {
  it('run without a global setup', () => {
    expect(JSON.stringify(fastConfig)).not.toMatch(/globalSetup/);
  });

  it('are listed, each once, and no file that needs a server is', () => {
    const listed = [...FAST_TEST_FILES, ...COMMAND_LINE_TEST_FILES];
    expect(listed.flatMap((file) => signs(file).server)).toEqual([]);
    expect([...listed].sort()).toEqual(SERVERLESS);
  });

  it('split into the fast tier and the ones that start the command line per case', () => {
    expect([...FAST_TEST_FILES].sort()).toEqual(SERVERLESS.filter((file) => !signs(file).commandLine));
    expect([...COMMAND_LINE_TEST_FILES].sort()).toEqual(SERVERLESS.filter((file) => signs(file).commandLine));
  });
});
