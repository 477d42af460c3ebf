/**
 * A payment case's database crash: an immediate shutdown of the embedded server and its restart on the
 * same data directory (as script-faults.ts crashes it for reservations), with the case's sessions told
 * first, so that a pay in flight across the crash answers INDETERMINATE rather than ERROR.
 */
import type { RunDatabase } from '../../../database/database.ts';
import type { PaymentSessions } from './payment-sessions.ts';

export async function crashPaymentDatabase(
  db: RunDatabase,
  schema: string,
  sessions: PaymentSessions,
): Promise<void> {
  const crashAndRestart = db.crashAndRestart?.bind(db);
  if (!crashAndRestart) throw new Error('the run has no way to restart this server');
  // The case's tables survive the crash whatever the run's durability (`--durability`): what a payment
  // scenario asks is what becomes of a pay that never committed, not of the tables it wrote to.
  await db.admin.query('CHECKPOINT');
  sessions.databaseCrashing();
  await crashAndRestart();
  // The admin connection is a new one: it reads the case's tables again.
  await db.admin.query(`SET search_path TO ${schema}`);
}
