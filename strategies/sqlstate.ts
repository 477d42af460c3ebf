/** PostgreSQL error codes the strategies and the harness branch on (Appendix A of the manual). */
export const SQLSTATE = {
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
} as const;

export function sqlstateOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
