import type { TestProject } from 'vitest/node';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A real embedded PostgreSQL server for the whole test run (its `postgres` database). */
    serverUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startEmbeddedServer();
  project.provide('serverUrl', server.adminUrl);
  return () => server.stop({ keepData: false });
}
