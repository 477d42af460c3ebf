/**
 * The argv of every command-line child a test starts. Any user on the machine reads a process's argv
 * (`ps`), so a database URL that carries a secret goes to the child in DATABASE_URL, never as
 * `--database-url`: an argv that carries one is refused before the child starts.
 */
import { redact } from '../harness/database/redact.ts';

const BIN = new URL('../bin/reservebench.js', import.meta.url).pathname;

/** A PostgreSQL URL with a password or a secret parameter in it: what redact would mask. */
function carriesSecret(arg: string): boolean {
  if (!URL.canParse(arg)) return false;
  const url = new URL(arg);
  return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && redact(arg) !== url.href;
}

/** `node`'s arguments for `reservebench …args`. */
export function cliArgv(args: readonly string[]): string[] {
  const leaking = args.find(carriesSecret);
  if (leaking !== undefined) {
    throw new Error(
      `a child's argv would show ${redact(leaking)} with its secret to anyone running ps: pass it in DATABASE_URL`,
    );
  }
  return [BIN, ...args];
}
