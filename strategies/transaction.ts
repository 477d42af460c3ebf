import type { ClientBase } from 'pg';

/**
 * Runs `work` inside BEGIN … COMMIT on the session's connection and rolls back on any error, so a failed
 * operation never leaves the connection inside an aborted transaction for the next request.
 */
export async function inTransaction<T>(db: ClientBase, work: () => Promise<T>): Promise<T> {
  await db.query('BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error: unknown) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
