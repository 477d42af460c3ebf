/** A design's audit, read in one snapshot: what every contract compares with the harness's own final read. */
import type { ClientBase } from 'pg';

/** `read` in one REPEATABLE READ, READ ONLY transaction on `db`, so every table it reads is of one instant. */
export async function inSnapshot<T>(db: ClientBase, read: () => Promise<T>): Promise<T> {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return await read();
  } finally {
    await db.query('COMMIT');
  }
}
