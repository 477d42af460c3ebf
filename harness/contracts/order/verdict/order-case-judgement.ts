/**
 * Every check of an order case, computed by the harness from its own records and reads — the contract's
 * invariants (order-invariants.ts), the history against the order model, the sell-what-remains probe, the scenario's exact answers,
 * remaining stock and blocking, errors, and whether the case drove what it claims — and the verdict.
 */
import {
  ORDER_OUTCOMES,
  type OrderCheckName,
  type OrderDesign,
} from '../../../../strategies/order/contract.ts';
import type { HistoryOperation } from '../../../history/history.ts';
import {
  countOutcomes,
  errorProblems,
  exactly,
  judge,
  notExercised,
  type Problem,
} from '../../../verdict/judgement.ts';
import type { OrderDriven } from '../case/order-spec-drive.ts';
import type { OrderFinalRead } from '../order-final-read.ts';
import type { OrderAnswer, OrderCall } from '../order-history.ts';
import { type OrderSent, orderInvariants } from '../order-invariants.ts';
import { sameOrderAnswer } from '../order-model.ts';
import type { OrderScenario } from '../order-scenario.ts';
import { judgeOrderHistory } from './order-history-check.ts';

const shown = (value: unknown) => JSON.stringify(value);

/** The scenario's exact answers per step, and remaining per sku, against what the case recorded and read. */
function observationProblems(
  scenario: OrderScenario,
  driven: OrderDriven,
  read: OrderFinalRead,
): Problem<OrderCheckName>[] {
  const { answers = {}, remaining = {} } = scenario.expect;
  const off = Object.entries(answers).flatMap(([step, expected]) => {
    const got = driven.answers[step];
    const same = typeof got === 'object' && got !== null && sameOrderAnswer(expected, got as OrderAnswer);
    return same ? [] : [`${step} ${shown(got)}, expected ${shown(expected)}`];
  });
  for (const [sku, expected] of Object.entries(remaining)) {
    const got = read.skus.get(sku)?.remaining;
    if (got !== expected) off.push(`remaining ${sku} ${got}, expected ${expected}`);
  }
  return off.map((message) => ({ check: 'observations', message }));
}

/** The steps seen waiting on another session, against the design's expected ones (where the scenario names any). */
function blockingProblems(
  design: OrderDesign,
  scenario: OrderScenario,
  driven: OrderDriven,
): Problem<OrderCheckName>[] {
  const expected = scenario.expect.blocking?.[design.id];
  if (!expected || !driven.steps) return [];
  const seen = driven.steps.filter((s) => s.blocked).map((s) => s.step);
  if (shown([...seen].sort()) === shown([...expected].sort())) return [];
  return [{ check: 'blocking', message: `blocked [${seen.join(', ')}], expected [${expected.join(', ')}]` }];
}

export function judgeOrderCase(
  design: OrderDesign,
  scenario: OrderScenario,
  driven: OrderDriven,
  read: OrderFinalRead,
  history: readonly HistoryOperation<OrderCall, OrderAnswer>[],
  /** What the harness found by probing the design after the final read (order-sells-what-remains.ts). */
  probed: readonly Problem<OrderCheckName>[],
) {
  const orders = driven.answered.filter((a) => a.call.op === 'order');
  const outcomes = countOutcomes(orders, ORDER_OUTCOMES);
  const sent: OrderSent[] = orders.flatMap((a) =>
    a.call.op === 'order' ? [{ request: a.call.request, outcome: a.outcome }] : [],
  );
  const totals = new Map(scenario.stock.map((s) => [s.sku, s.total]));
  const checked = judgeOrderHistory(totals, history);
  const exact = driven.listed;
  const expected = scenario.expect.outcomes;
  const found: Problem<OrderCheckName>[] = [
    ...orderInvariants(sent, read),
    ...checked.problems,
    ...probed,
    ...errorProblems(driven.answered),
    ...(exact && expected ? exactly(expected, outcomes) : []),
    ...(exact ? observationProblems(scenario, driven, read) : []),
    ...(exact ? blockingProblems(design, scenario, driven) : []),
    ...notExercised<OrderCheckName>(driven.notExercised),
  ];
  const held = () => `held: every order whole, ${formatStock(read)}`;
  return { ...judge(design, design.expect, scenario.id, found, held), outcomes, history: checked.summary };
}

/** `sku-a 0/20 remaining, …`. */
function formatStock(read: OrderFinalRead): string {
  return [...read.skus].map(([sku, s]) => `${sku} ${s.remaining}/${s.total} remaining`).join(', ');
}
