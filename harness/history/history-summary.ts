/**
 * What a case result of any contract says of its history (docs/history-checker.md): checked and found
 * linearizable, a violation with its smallest witness, or unchecked with the reason (a search past its
 * budget, operations the history misses), which is never reported as checked.
 */
import type { HistoryVerdict } from './check-parts.ts';
import type { WitnessLine } from './witness.ts';

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
