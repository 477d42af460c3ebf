/**
 * The SCRAM-SHA-256 secret PostgreSQL stores for a password (`SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:
 * <ServerKey>`, RFC 5802/7677), made here so that the iteration count is ours on every major (the
 * `scram_iterations` setting only exists from 16 on). The embedded server's login derives the salted
 * password once per connection — the server for `password` logins, the client for `scram-sha-256` ones —
 * and at PostgreSQL's default of 4096 rounds that derivation was a large share of what a connection costs
 * the server, in a run that opens thousands on the 2 cores it shares. The rounds only slow a guess at a weak
 * password from a stolen secret; this server's password is 144 random bits, set anew for every server that
 * listens only on loopback and is removed with its directory, so one round loses nothing.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

export const EMBEDDED_SCRAM_ITERATIONS = 1;

export function scramSecret(password: string, iterations = EMBEDDED_SCRAM_ITERATIONS): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
