/**
 * The drive the payment failover scenarios share (fixtures/payment/scenarios/payment-failover-*.ts):
 * payments acknowledged CREATED on the primary, the primary failed over, and every key paid again on the
 * promoted member, as a client retries with a new attempt's payment id: a payment kept across the
 * failover answers REUSED with the id first answered; one lost answers CREATED anew. Asynchronously, the
 * standby's link is cut (observed: once it has replayed the first payments) before the rest are paid, so
 * those are acknowledged past it. The counts across copies are the shared cluster checks' (lostAcknowledged).
 */
import type { PaymentRequest } from '../../../../strategies/payment/contract.ts';
import type { Replication } from '../../../cluster/cluster.ts';
import { paymentRequest } from '../spec/order-payment-payload.ts';
import type { PaymentAnswer } from '../verdict/payment-invariants.ts';
import type { PaymentScriptContext } from './payment-scenario.ts';

/** Payments acknowledged before the failover; asynchronously, the last half past the standby. */
export const PAID_BEFORE = 10;

const requestFor = (i: number, attempt: string): PaymentRequest =>
  paymentRequest(`idem-failover-${String(i).padStart(2, '0')}`, `pay-failover-${i}-${attempt}`);

async function payEach(ctx: PaymentScriptContext, requests: readonly PaymentRequest[]) {
  const answers: PaymentAnswer[] = [];
  for (const request of requests) answers.push(await ctx.pay(request));
  return answers;
}

const created = (answers: readonly PaymentAnswer[]) => answers.filter((a) => a.outcome === 'CREATED').length;

export function paymentsAcrossFailover(replication: Replication) {
  return async (ctx: PaymentScriptContext): Promise<void> => {
    const { cluster } = ctx;
    if (!cluster) throw new Error('a payment failover scenario runs on a cluster (declare `cluster`)');
    const standby = (await cluster.standbys())[0];
    if (!standby) throw new Error('the cluster has no standby');
    const firsts = Array.from({ length: PAID_BEFORE }, (_, i) => requestFor(i + 1, 'first'));
    const half = replication === 'async' ? PAID_BEFORE / 2 : PAID_BEFORE;
    const before = await payEach(ctx, firsts.slice(0, half));
    if (replication === 'async') {
      await cluster.caughtUp(standby);
      await cluster.partition(standby);
      const past = await payEach(ctx, firsts.slice(half));
      ctx.observe('paidPastStandby', created(past));
      before.push(...past);
    }
    ctx.observe('createdBefore', created(before));
    const facts = await cluster.failover(standby);
    ctx.observe('unavailableMs', facts.unavailableMs);
    const again = await payEach(
      ctx,
      firsts.map((_, i) => requestFor(i + 1, 'again')),
    );
    const sameId = again.filter(
      (a, i) => a.outcome === 'REUSED' && a.response?.paymentId === before[i]?.response?.paymentId,
    );
    ctx.observe('reusedSamePayment', sameId.length);
    ctx.observe('createdAgain', created(again));
  };
}
