/**
 * Payment histories that are linearizable by construction, for testing the payment checker for false
 * alarms (as synthetic-history.ts does for reservations): a random sequence of pays and reads over a few
 * keys and payloads is run through the payment model one by one (operation i takes effect at instant i),
 * then each interval is widened around its instant; any interval that contains its instant keeps that
 * order a valid one. Some pays are cut off (unknown: taken effect or not) or rolled back (aborted).
 */
import type { PaymentRequest } from '../../../../strategies/payment/contract.ts';
import { seededRandom } from '../../../history/seeded-random.ts';
import { type SyntheticEnding, syntheticTiming } from '../../../history/synthetic-timing.ts';
import type { PaymentCall, PaymentHistoryAnswer, PaymentHistoryOperation } from './payment-history.ts';
import { PaymentState, paymentResults } from './payment-model.ts';

export interface SyntheticPaymentOptions {
  operations: number;
  keys: number;
  /** How far (in instants) an operation's interval reaches to either side of its own. */
  overlap: number;
  seed: number;
}

function randomCall(random: () => number, o: SyntheticPaymentOptions, i: number): PaymentCall {
  const idempotencyKey = `key-${Math.floor(random() * o.keys)}`;
  if (random() < 0.2) return { op: 'read', idempotencyKey };
  const amount = random() < 0.7 ? 3000 : 9999;
  const request: PaymentRequest = {
    idempotencyKey,
    fingerprint: `fp-${amount}`,
    order: 'order-1',
    amount,
    currency: 'CNY',
    merchant: 'demo',
    paymentId: `pay-${i}`,
  };
  return { op: 'pay', request };
}

/** The answer a pay that creates its key's payment gives: the request's own payment. */
function createdAnswer(call: PaymentCall): PaymentHistoryAnswer | undefined {
  if (call.op !== 'pay') return undefined;
  const { paymentId, order, amount, currency } = call.request;
  return { outcome: 'CREATED', response: { paymentId, order, amount, currency } };
}

/** How the operation ended: mostly answered; some pays cut off (unknown) or rolled back (aborted). */
function endingKind(random: () => number, call: PaymentCall): SyntheticEnding {
  const roll = random();
  if (call.op === 'read') return 'ok';
  return roll < 0.08 ? 'unknown' : roll < 0.14 ? 'aborted' : 'ok';
}

export function syntheticPaymentHistory(o: SyntheticPaymentOptions): PaymentHistoryOperation[] {
  const random = seededRandom(o.seed);
  const state = new PaymentState();
  const operations: PaymentHistoryOperation[] = [];
  for (let i = 0; i < o.operations; i++) {
    const call = randomCall(random, o, i);
    const taken = paymentResults(state, call, createdAnswer(call), { withoutGaveUp: true })[0];
    if (!taken) throw new Error(`the payment model has no answer for ${call.op}`);
    const kind = endingKind(random, call);
    if (kind !== 'aborted') state.apply(taken.changes);
    const timing = syntheticTiming<PaymentHistoryAnswer>(random, i, o.overlap, kind, taken.answer);
    operations.push({ id: i, call, session: `s${i % 8}`, ...timing });
  }
  operations.sort((a, b) => a.invokedAt - b.invokedAt);
  return operations.map((op, id) => ({ ...op, id }));
}
