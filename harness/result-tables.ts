/**
 * The rows of the case table and the boundary table as plain strings, rendered both on the terminal
 * (cli-table3) and in report.md (markdown-table), so the two never disagree.
 */
import type { BoundaryRow } from './boundary.ts';
import { type CaseResult, formatOutcomes, isMeasured } from './case-result.ts';
import type { Invariants } from './invariants.ts';

export interface TableData {
  headers: string[];
  rows: string[][];
}

const INVARIANT_COLUMNS: readonly (keyof Invariants)[] = [
  'total',
  'available',
  'active',
  'drift',
  'oversold',
  'duplicateActive',
  'duplicateKey',
  'lostAcknowledged',
  'unacknowledgedActive',
  'falseSoldOut',
  'auditMismatch',
];

const INVARIANT_HEADERS: Record<keyof Invariants, string> = {
  total: 'total',
  available: 'avail',
  active: 'active',
  drift: 'drift',
  oversold: 'oversold',
  duplicateActive: 'dup active',
  duplicateKey: 'dup key',
  lostAcknowledged: 'lost ack',
  unacknowledgedActive: 'unacked',
  falseSoldOut: 'false sold-out',
  auditMismatch: 'audit ≠',
};

/** Measured and broken cases; `n/a` ones are summed up by `notApplicableLine`. */
export function caseTable(all: readonly CaseResult[]): TableData {
  const cases = all.filter((c) => c.status !== 'n/a');
  return {
    headers: ['case', 'expect', 'status', 'outcomes', ...INVARIANT_COLUMNS.map((k) => INVARIANT_HEADERS[k])],
    rows: cases.map((c) => [
      c.id,
      c.expect,
      c.status,
      formatOutcomes(c.outcomes),
      ...INVARIANT_COLUMNS.map((k) => (isMeasured(c) ? String(c.invariants[k]) : '-')),
    ]),
  };
}

export function boundaryTable(rows: readonly BoundaryRow[]): TableData {
  return {
    headers: ['strategy', 'expect', 'how it stays correct', 'this run', 'boundary observed', 'shown by'],
    rows: rows.map((r) => [r.strategy, r.expect, r.guarantee, r.counts, r.boundary, r.shownBy]),
  };
}

export function notApplicableLine(cases: readonly CaseResult[]): string | undefined {
  const skipped = cases.filter((c) => c.status === 'n/a');
  if (skipped.length === 0) return undefined;
  return `n/a: ${skipped.length} case(s) where a strategy does not take part (negative controls outside the scenario that catches them, missing pause points or lifecycle operations); reasons in report.json`;
}
