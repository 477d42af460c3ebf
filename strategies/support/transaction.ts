import type { ClientBase } from 'pg';

/**
 * Runs `work` inside BEGIN … COMMIT on the session's connection and rolls back on any error, so a failed
 * operation never leaves the connection inside an aborted transaction for the next request. `isolation`
 * pins the transaction's level whatever the session's default is.
 */
export async function inTransaction<T>(
  db: ClientBase,
  work: () => Promise<T>,
  isolation?: 'SERIALIZABLE' | 'REPEATABLE READ' | 'READ COMMITTED',
): Promise<T> {
  await db.query(isolation ? `BEGIN ISOLATION LEVEL ${isolation}` : 'BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error: unknown) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
