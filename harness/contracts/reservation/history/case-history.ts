/**
 * The `linearizable` check of one case: its recorded history (with the final read) checked against the
 * contract model, and what the case result reports of it — checked and found linearizable, a violation
 * with its smallest witness, or unchecked with the reason (a search past its budget, operations the
 * history misses), which is never reported as checked.
 */

import type { HistoryVerdict } from '../../../history/check-parts.ts';
import type { History } from '../../../history/history.ts';
import type { WitnessLine } from '../../../history/witness.ts';
import { checkHistory } from './check-history.ts';
import { heldAfterDisable } from './held-after-disable.ts';

/** What a case result says of its history (docs/history-checker.md). */
export interface HistorySummary {
  status: 'linearizable' | 'violation' | 'unchecked';
  /** Operations recorded (the final read's included) and the independent parts they form. */
  operations: number;
  parts: number;
  /** Model steps the search took, and how long it took in ms. */
  steps: number;
  ms: number;
  /** Why it was not checked (unchecked only). */
  reason?: string;
  /** The violation in one line, and its smallest witness (violation only). */
  summary?: string;
  witness?: WitnessLine[];
}

export function summaryOf(verdict: HistoryVerdict): HistorySummary {
  const base = {
    status: verdict.status,
    operations: verdict.operations,
    parts: verdict.parts,
    steps: verdict.steps,
    ms: Math.round(verdict.ms * 10) / 10,
  };
  if (verdict.status === 'unchecked') return { ...base, reason: verdict.reason };
  if (verdict.status === 'violation') return { ...base, summary: verdict.summary, witness: verdict.witness };
  return base;
}

type HistoryProblem = { check: 'linearizable' | 'heldAfterDisable'; message: string };

function heldAfterDisableProblems(history: History): HistoryProblem[] {
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
  history: History,
  options: { soldOutWhileStock: boolean },
): { summary: HistorySummary; problems: HistoryProblem[] } {
  const verdict = checkHistory(history, { model: { soldOutWhileStock: options.soldOutWhileStock } });
  const problems: HistoryProblem[] =
    verdict.status === 'violation'
      ? [{ check: 'linearizable', message: `not linearizable: ${verdict.summary}` }]
      : [];
  return { summary: summaryOf(verdict), problems: [...problems, ...heldAfterDisableProblems(history)] };
}
