/** PostgreSQL error codes the strategies and the harness branch on (Appendix A of the manual). */
export const SQLSTATE = {
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  serializationFailure: '40001',
  adminShutdown: '57P01',
  connectionFailure: '08006',
} as const;

/** node-postgres's own words when the server went away under a query: no SQLSTATE comes with them. */
const CONNECTION_LOST = /Connection terminated|not queryable|ECONNRESET|EPIPE/;

export function sqlstateOf(error: unknown): string | undefined {
  // The server's SQLSTATE: never a Node system error's code, which may be five capitals too (EPIPE, the
  // write to a Unix socket whose server end a crash or a terminated backend closed).
  if (typeof error === 'object' && error !== null && 'code' in error && !('syscall' in error)) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  // The connection was lost (a terminated backend, a crashed server): PostgreSQL's class 08 says so.
  if (error instanceof Error && CONNECTION_LOST.test(error.message)) return SQLSTATE.connectionFailure;
  return undefined;
}
