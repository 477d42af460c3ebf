/**
 * The deadline of a whole case: a phase that never answers makes the case stuck, reported in one line,
 * instead of holding the run.
 */
import type { RunDatabase } from '../database/database.ts';

/** How many barrier timeouts a whole case may take before it is stuck (a phase that never answers). */
const CASE_DEADLINE_BARRIERS = 5;

class CaseDeadline extends Error {
  constructor(ms: number) {
    super(`did not finish within ${ms / 1000} s: an operation never answered`);
  }
}

/**
 * The case's work, or a one-line failure once its deadline (a few barrier timeouts of `timeoutMs`) has
 * passed. Whatever still runs is cut off: every other backend on the run database (only this case's
 * sessions are there) is terminated, so its locks go and the case's schema can be dropped.
 */
export async function withinCaseDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  db: RunDatabase,
): Promise<T> {
  const ms = CASE_DEADLINE_BARRIERS * timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CaseDeadline(ms)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (error: unknown) {
    if (error instanceof CaseDeadline) {
      await db.admin
        .query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
        .catch(() => undefined);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
