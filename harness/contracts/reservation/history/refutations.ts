/**
 * Quick proofs that a part of a history admits no order, found before any search: when one holds, the
 * search could only fail, and slowly (every way of picking which answers to believe). Each is sound on
 * its own: it never refutes a history that has an order.
 */
import type { SearchOperation } from '../../../history/search-operation.ts';
import type { Answer, Call } from './reservation-operations.ts';

/**
 * A quick proof that no order exists, found before any search: more HELD answers on a sku than its stock
 * plus every unit that could have come back (a release or confirm that moved, units an expire returned,
 * an operation of unknown ending that could return some). Each HELD takes a unit and only those give one
 * back, so the search could only fail, slowly.
 */
function oversold(
  operations: readonly SearchOperation<Call, Answer>[],
  totals: ReadonlyMap<string, number>,
): boolean {
  const held = new Map<string, number>();
  let comesBack = 0;
  for (const s of operations) {
    const { call } = s.op;
    if (!s.required && call.op !== 'reserve' && call.op !== 'status' && call.op !== 'remaining') return false;
    const w = s.wanted;
    if (call.op === 'reserve' && w && 'outcome' in w && w.outcome === 'HELD')
      held.set(call.sku, (held.get(call.sku) ?? 0) + 1);
    if (w && 'moved' in w && w.moved && call.op === 'release') comesBack += 1;
    if (w && 'units' in w) comesBack += w.units;
  }
  return [...held].some(([sku, n]) => n > (totals.get(sku) ?? 0) + comesBack);
}

/**
 * A key an answer showed recorded (HELD, a REPLAY, a confirm or release that moved it, a status other
 * than NOT_FOUND), and a status read of it begun after that answer came back saying NOT_FOUND: no
 * transition of the contract forgets a key, so no order explains both (an acknowledged hold lost).
 */
function forgottenKey(operations: readonly SearchOperation<Call, Answer>[]): boolean {
  const recordedBy = new Map<string, number>();
  for (const { op, wanted } of operations) {
    if (!wanted || op.completedAt === null || !('requestKey' in op.call)) continue;
    const shown =
      ('outcome' in wanted && (wanted.outcome === 'HELD' || wanted.outcome === 'REPLAY')) ||
      ('moved' in wanted && wanted.moved) ||
      ('status' in wanted && !('outcome' in wanted) && wanted.status !== 'NOT_FOUND');
    if (!shown) continue;
    const key = op.call.requestKey;
    recordedBy.set(key, Math.min(recordedBy.get(key) ?? Number.POSITIVE_INFINITY, op.completedAt));
  }
  return operations.some(
    ({ op, wanted }) =>
      op.call.op === 'status' &&
      wanted !== undefined &&
      'status' in wanted &&
      wanted.status === 'NOT_FOUND' &&
      op.invokedAt > (recordedBy.get(op.call.requestKey) ?? Number.POSITIVE_INFINITY),
  );
}

export function refuted(
  operations: readonly SearchOperation<Call, Answer>[],
  totals: ReadonlyMap<string, number>,
): boolean {
  return oversold(operations, totals) || forgottenKey(operations);
}
