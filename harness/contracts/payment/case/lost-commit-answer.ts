/**
 * One pay on a session whose connection runs through the commit-ack proxy (crash/commit-ack-proxy.ts):
 * the server commits the key's payment and answers, and the proxy cuts the connection instead of passing
 * the answer on, so the worker cannot know whether it paid. Which answer is the commit's is read back
 * on a connection of its own (has the key a payment more than before?), never timed.
 */
import type { PaymentDesign, PaymentRequest } from '../../../../strategies/payment/contract.ts';
import { sqlstateOf } from '../../../../strategies/support/sqlstate.ts';
import { commitAckProxyFor } from '../../../crash/commit-ack-proxy.ts';
import { caseClient } from '../../../driver/case-client.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { harnessNow } from '../../../history/recorder.ts';
import type { PaymentAnswer } from '../verdict/payment-invariants.ts';

export async function payWithLostCommitAnswer(
  connection: CaseConnection,
  design: PaymentDesign,
  request: PaymentRequest,
): Promise<PaymentAnswer> {
  const { proxy, url } = await commitAckProxyFor(connection.connectionString);
  const worker = caseClient(connection, 'reservebench-payment-proxied', url);
  const reader = caseClient(connection, 'reservebench-payment-ack-check');
  let invokedAt = harnessNow();
  try {
    await Promise.all([worker.connect(), reader.connect()]);
    // The commit's answer is the one after which the key has a payment more than before: whatever id the
    // design gave it (a design may make its own instead of the proposed one).
    const paymentsOfKey = async () => (await design.paymentStatus(reader, request.idempotencyKey)).length;
    const before = await paymentsOfKey();
    proxy.loseCommitAnswer(async () => (await paymentsOfKey()) > before);
    invokedAt = harnessNow();
    const answer = await design.pay({ db: worker, pause: async () => undefined }, request);
    return { request, ...answer, invokedAt, completedAt: harnessNow() };
  } catch (error: unknown) {
    const sqlstate = sqlstateOf(error);
    const lost = { request, outcome: 'INDETERMINATE', invokedAt, completedAt: harnessNow() };
    return { ...lost, ...(sqlstate ? { sqlstate } : {}) };
  } finally {
    await Promise.all([worker.end().catch(() => undefined), reader.end().catch(() => undefined)]);
    await proxy.close();
  }
}
