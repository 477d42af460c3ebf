/**
 * A payment case's final read: on one server, every key it sent read through the design
 * (verdict/payment-final-read.ts); on a cluster, the same on every member that was writable at some point
 * of the case (cluster/copy-reads.ts: each waited for until it answers), the authority's read judged as on
 * one server and the acknowledged payments counted across the copies (verdict/payment-copies.ts). A copy
 * that never answered by the deadline makes the case fail as not exercised.
 */
import type { PaymentCheckName, PaymentDesign } from '../../../../strategies/payment/contract.ts';
import type { ClusterRunDatabase } from '../../../cluster/cluster-database.ts';
import { readClusterCopies } from '../../../cluster/copy-reads.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { notExercised } from '../../../verdict/judgement.ts';
import { type PaymentCopySummary, paymentsAcrossCopies } from '../verdict/payment-copies.ts';
import { type PaymentFinalRead, readPaymentsBack } from '../verdict/payment-final-read.ts';
import type { PaymentAnswer, PaymentProblem } from '../verdict/payment-invariants.ts';

export interface PaymentFinalReads {
  read: PaymentFinalRead;
  /** Across the copies of a cluster case: lost acknowledged payments, copies unread. */
  problems: PaymentProblem[];
  cluster?: { lostAcknowledged: number; copies: PaymentCopySummary[] };
}

export async function paymentFinalReads(
  db: RunDatabase,
  connection: CaseConnection,
  design: PaymentDesign,
  keys: readonly string[],
  answers: readonly PaymentAnswer[],
  deadlineMs: number,
): Promise<PaymentFinalReads> {
  const readOn = (connectionString: string) =>
    readPaymentsBack({ ...connection, connectionString }, design, keys);
  if (!('cluster' in db)) return { read: await readOn(connection.connectionString), problems: [] };
  const reads = await readClusterCopies(db as ClusterRunDatabase, connection.schema, readOn, deadlineMs);
  const across = paymentsAcrossCopies(answers, reads.read);
  return {
    read: reads.authority,
    problems: [...across.problems, ...notExercised<PaymentCheckName>(reads.unread)],
    cluster: { lostAcknowledged: across.lostAcknowledged, copies: across.copies },
  };
}
