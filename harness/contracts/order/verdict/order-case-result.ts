/**
 * An order case's result, as the report keeps it: the identity and verdict every case has, the answer
 * counts, and the stock the harness read back itself (report-schema.ts, `orders`).
 */
import type { OrderCheckName, OrderDesign } from '../../../../strategies/order/contract.ts';
import type { HistorySummary } from '../../../history/history-summary.ts';
import type { CaseResultBase, PermutationReport, ReportedStep } from '../../../verdict/case-result.ts';

export interface OrderCaseResult extends CaseResultBase {
  contract: 'order';
  expect: OrderDesign['expect'];
  /** Per sku, what `remaining` read at the end, and the quantities its HELD orders hold (the harness's reads). */
  stock?: Record<string, { total: number; remaining: number; held: number }>;
  /** The case's calls and final read checked against the order model (`linearizable`). */
  history?: HistorySummary;
  /** A spec's recorded steps (its listed permutation's). */
  steps?: ReportedStep[];
  /** `run --permutations all`: every order of a spec's steps, the listed one first. */
  permutations?: PermutationReport[];
  fired?: OrderCheckName[];
}
