/**
 * The `linearizable` check of one reservation case: its recorded history (with the final read) checked
 * against the contract model, summed up as any contract's case result reports it (history-summary.ts),
 * and the `heldAfterDisable` check, which the order of real time decides.
 */

import { type HistorySummary, summaryOf } from '../../../history/history-summary.ts';
import { checkHistory } from './check-history.ts';
import { heldAfterDisable } from './held-after-disable.ts';
import type { ReservationHistory } from './reservation-operations.ts';

type HistoryProblem = { check: 'linearizable' | 'heldAfterDisable'; message: string };

function heldAfterDisableProblems(history: ReservationHistory): HistoryProblem[] {
  const late = heldAfterDisable(history.operations);
  if (late.length === 0) return [];
  // Rounded to 0.1 ms, a booking sent a hair after the disable would read "0 ms after".
  const lateness = (ms: number) => (ms < 0.1 ? 'under 0.1 ms' : `${ms} ms`);
  const named = late
    .map((b) => `${b.requestKey} (${b.sku}) went on ${lateness(b.lateByMs)} after`)
    .join(', ');
  return [
    {
      check: 'heldAfterDisable',
      message: `heldAfterDisable ${late.length}: booked HELD after the disable returned: ${named}`,
    },
  ];
}

/** The history's checks: `linearizable`, and `heldAfterDisable`, which the order of real time decides. */
export function judgeHistory(
  history: ReservationHistory,
  options: { soldOutWhileStock: boolean },
): { summary: HistorySummary; problems: HistoryProblem[] } {
  const verdict = checkHistory(history, { model: { soldOutWhileStock: options.soldOutWhileStock } });
  const problems: HistoryProblem[] =
    verdict.status === 'violation'
      ? [{ check: 'linearizable', message: `not linearizable: ${verdict.summary}` }]
      : [];
  return { summary: summaryOf(verdict), problems: [...problems, ...heldAfterDisableProblems(history)] };
}
