/**
 * The order contract's `linearizable` check of one case: every call the case made of the design (orders,
 * releases, expiries, backdates, mid-case reads) and the harness's final read, checked against the order
 * model (order-model.ts) by the one search every contract shares (check-parts.ts). Carts join keys through
 * their skus, so a case's history is one part. The harness builds the history from its own records; the
 * design only answered.
 */
import { checkParts } from '../../../history/check-parts.ts';
import type { HistoryOperation } from '../../../history/history.ts';
import { type HistorySummary, summaryOf } from '../../../history/history-summary.ts';
import { type ClockMapping, FINAL_READ_SESSION } from '../../../history/recorder.ts';
import { type SearchOperation, searchOperationsOf } from '../../../history/search-operation.ts';
import type { WitnessView } from '../../../history/witness.ts';
import type { OrderAnswered } from '../case/order-answered.ts';
import type { OrderFinalRead } from '../order-final-read.ts';
import type { OrderAnswer, OrderCall, TimedOrderCall } from '../order-history.ts';
import { orderModel } from '../order-model.ts';
import { ORDER_RULES } from '../order-rules.ts';

type OrderOperation = HistoryOperation<OrderCall, OrderAnswer>;
type OrderSearchOperation = SearchOperation<OrderCall, OrderAnswer, TimedOrderCall>;

const cartText = (lines: readonly { sku: string; qty: number }[]) =>
  lines.map((l) => `${l.sku}:${l.qty}`).join(',') || 'nothing';

export function describeOrderCall(call: OrderCall): string {
  switch (call.op) {
    case 'order':
      return `order ${call.request.requestKey} ${call.request.user} ${cartText(call.request.lines)}`;
    case 'expire':
      return 'expire';
    case 'remaining':
      return `remaining ${call.sku}`;
    case 'backdate':
      return `backdate ${call.requestKeys.join(' ')}`;
    default:
      return `${call.op} ${call.requestKey}`;
  }
}

export function describeOrderAnswer(answer: OrderAnswer): string {
  if ('outcome' in answer)
    return [answer.outcome, answer.sku, answer.outcome === 'REPLAY' ? answer.status : undefined]
      .filter(Boolean)
      .join(' ');
  if ('moved' in answer) return answer.moved ? 'moved' : 'not moved';
  if ('orders' in answer) return `${answer.orders} orders, ${answer.units} units`;
  if ('status' in answer) return answer.status;
  if ('remaining' in answer) return `${answer.remaining} remaining`;
  if ('lines' in answer) return cartText(answer.lines);
  return 'done';
}

/** A call that may have changed the state: the shrinking of a witness keeps every one of them. */
const mayHaveWritten = (s: OrderSearchOperation) =>
  ['order', 'release', 'expire', 'backdate'].includes(s.op.call.op) &&
  (s.wanted === undefined || !('outcome' in s.wanted) || s.wanted.outcome === 'HELD');

const ORDER_WITNESS_VIEW: WitnessView<OrderCall, OrderAnswer, TimedOrderCall> = {
  describeCall: describeOrderCall,
  describeAnswer: describeOrderAnswer,
  droppable: (chunk) => !chunk.some(mayHaveWritten),
  describeRule: (rule) => ORDER_RULES[rule as keyof typeof ORDER_RULES] ?? rule,
};

/** The final read as the history records it: every key's status and lines, every sku's remaining. */
function finalReadCalls(read: OrderFinalRead): { call: OrderCall; answer: OrderAnswer }[] {
  return [
    ...[...read.keys].flatMap(([requestKey, r]) => [
      { call: { op: 'status' as const, requestKey }, answer: { status: r.status } },
      { call: { op: 'lines' as const, requestKey }, answer: { lines: r.lines } },
    ]),
    ...[...read.skus].map(([sku, s]) => ({
      call: { op: 'remaining' as const, sku },
      answer: { remaining: s.remaining },
    })),
  ];
}

/** The case's history: its calls, then the final read made between `readFrom` and `readTo`. */
export function orderCaseHistory(
  answered: readonly OrderAnswered[],
  read: OrderFinalRead,
  window: { readFrom: number; readTo: number },
  clock: ClockMapping,
): OrderOperation[] {
  const db = (from: number, to: number | null) => ({
    from: from + clock.offset - clock.slack,
    to: to === null ? null : to + clock.offset + clock.slack,
  });
  const calls = answered.map(
    (a): Omit<OrderOperation, 'id'> => ({
      call: a.call,
      session: a.session,
      invokedAt: a.invokedAt,
      completedAt: a.completedAt,
      db: db(a.invokedAt, a.completedAt),
      ending: a.ending,
    }),
  );
  const reads = finalReadCalls(read).map(
    ({ call, answer }): Omit<OrderOperation, 'id'> => ({
      call,
      session: FINAL_READ_SESSION,
      invokedAt: window.readFrom,
      completedAt: window.readTo,
      db: db(window.readFrom, window.readTo),
      ending: { kind: 'ok', answer },
    }),
  );
  return [...calls, ...reads].sort((a, b) => a.invokedAt - b.invokedAt).map((op, id) => ({ ...op, id }));
}

/** Answered operations with their answer; unknown ones optional, with any answer; aborted ones left out. */
function searchOperations(operations: readonly OrderOperation[]): OrderSearchOperation[] {
  return searchOperationsOf(operations, Math.max(0, ...operations.map((o) => o.db.to ?? 0)));
}

/** The check's summary for the case result, and its problem when no order explains the answers. */
export function judgeOrderHistory(
  totals: ReadonlyMap<string, number>,
  operations: readonly OrderOperation[],
): { summary: HistorySummary; problems: { check: 'linearizable'; message: string }[] } {
  const start = Math.min(...operations.map((o) => o.invokedAt));
  const verdict = checkParts(
    [{ searched: searchOperations(operations), size: operations.length }],
    { operations: operations.length, start },
    {
      model: orderModel(totals),
      explain: orderModel(totals, { withoutGaveUp: true }),
      view: ORDER_WITNESS_VIEW,
      part: 'the case',
    },
  );
  const problems =
    verdict.status === 'violation'
      ? [{ check: 'linearizable' as const, message: `not linearizable: ${verdict.summary}` }]
      : [];
  return { summary: summaryOf(verdict), problems };
}
