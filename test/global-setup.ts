import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { cliBundle } from '../bin/cli-bundle.js';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A real embedded PostgreSQL server for the whole test run (its `postgres` database). */
    serverUrl: string;
    /** The test run's own temp directory (also its TMPDIR), removed when the run ends. */
    scratch: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The tests fail controls on purpose, and a failing run keeps its data and a state file naming it. A temp
  // directory of the test run's own (inherited by every test process and CLI they start) takes all of
  // it — state files, servers' data directories — and goes with the run, instead of piling up in the
  // machine's temp directory for the next `reservebench clean` to find.
  const scratch = mkdtempSync(join(tmpdir(), 'reservebench-tests-'));
  // As root the server runs as `postgres`, which must reach its data directory (and initdb its password
  // file) in here.
  chmodSync(scratch, 0o755);
  process.env.TMPDIR = scratch;
  // Built once here, not by the first command lines the tests start side by side.
  const [server] = await Promise.all([startEmbeddedServer(), cliBundle()]);
  project.provide('serverUrl', server.adminUrl);
  project.provide('scratch', scratch);
  return async () => {
    await server.stop({ keepData: false });
    rmSync(scratch, { recursive: true, force: true });
  };
}
