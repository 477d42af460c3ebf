/**
 * The rows of the case table and the boundary table as plain strings, rendered both on the terminal
 * (cli-table3) and in report.md (markdown-table), so the two never disagree.
 */

import { type CaseResult, formatOutcomes, isMeasured } from '../verdict/case-result.ts';
import type { CoverageRow } from '../verdict/coverage.ts';
import type { Invariants } from '../verdict/invariants.ts';
import type { BoundaryRow } from './boundary.ts';
import type { IsolationRow } from './isolation-matrix.ts';

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
  'reconciled',
  'ledgerReplayDrift',
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
  reconciled: 'books',
  ledgerReplayDrift: 'ledger drift',
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
      ...INVARIANT_COLUMNS.map((k) => (isMeasured(c) ? String(c.invariants[k] ?? '-') : '-')),
    ]),
  };
}

export function boundaryTable(rows: readonly BoundaryRow[]): TableData {
  return {
    headers: ['strategy', 'expect', 'how it stays correct', 'this run', 'boundary observed', 'shown by'],
    rows: rows.map((r) => [r.strategy, r.expect, r.guarantee, r.counts, r.boundary, r.shownBy]),
  };
}

export function coverageTable(rows: readonly CoverageRow[]): TableData {
  const scenarios = [...new Set(rows.flatMap((r) => Object.keys(r.cells)))];
  return {
    headers: ['strategy', 'expect', ...scenarios],
    rows: rows.map((r) => [r.strategy, r.expect, ...scenarios.map((s) => r.cells[s] ?? '-')]),
  };
}

/** `hot-row: not covered: expiry — no expire`, one line per strategy with gaps. */
export function coverageGapLines(rows: readonly CoverageRow[]): string[] {
  return rows.filter((r) => r.gaps.length > 0).map((r) => `${r.strategy}: not covered: ${r.gaps.join(', ')}`);
}

export function isolationTable(rows: readonly IsolationRow[]): TableData {
  return {
    headers: ['design', 'isolation', 'claimed?', 'held', 'broke', 'SQLSTATEs', 'retries', 'shown by'],
    rows: rows.map((r) => [
      r.strategy,
      r.level,
      r.claim === 'claimed' ? 'claimed' : 'measured only',
      r.held ? 'yes' : 'no',
      r.broke.join(', ') || '-',
      Object.entries(r.sqlstates)
        .map(([state, n]) => `${state} ×${n}`)
        .join(', ') || '-',
      String(r.retries),
      r.shownBy,
    ]),
  };
}

export function notApplicableLine(cases: readonly CaseResult[]): string | undefined {
  const skipped = cases.filter((c) => c.status === 'n/a');
  if (skipped.length === 0) return undefined;
  const gaps = skipped.filter((c) => c.coverage.missing.length > 0).length;
  return `n/a: ${skipped.length} case(s): ${skipped.length - gaps} where a negative control sits out a scenario not meant to catch it, ${gaps} not covered for lack of an operation or pause point (listed below); reasons in report.json`;
}
