/**
 * The rows of report.md's tables as plain strings (the case table, coverage, isolation and version
 * matrices), rendered in report.md (markdown-table) and, the short ones, on the terminal (box-table.ts), so
 * the two never disagree.
 */

import type { TableData } from '../../../contract/contract.ts';
import { formatOutcomes, formatPhases, isMeasured } from '../../../verdict/case-result.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import type { Invariants } from '../verdict/invariants.ts';
import type { CoverageRow } from './coverage.ts';
import type { IsolationRow } from './isolation-matrix.ts';
import type { VersionRow } from './version-matrix.ts';

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

/** The header of the outcomes column: each phase's answers alone, never a running total. */
export const PHASES_HEADER = 'outcomes per phase';

/** What the case table says about its outcomes column, above the table. */
export const PHASES_NOTE =
  'Outcomes are shown per phase (`·` between phases): each phase counts its own answers only, and the lifecycle steps before or during it are in its label, so a later phase can hold units an earlier one gave back (expiry) without anything being oversold. report.json keeps the sum as `outcomes` and the phases as `phases`.';

/** `reserve: HELD 10 · reserve after expire ×2 (5 units back): HELD 5, SOLD_OUT 5`; a case never measured, its outcomes. */
export function phasesCell(c: CaseResult, separator = ' · '): string {
  return isMeasured(c) ? formatPhases(c.phases, separator) : formatOutcomes(c.outcomes);
}

/** Seconds with two decimals (the case's wall time), `-` when it was not timed. */
export function durationCell(c: CaseResult): string {
  return c.durationMs === undefined ? '-' : (c.durationMs / 1000).toFixed(2);
}

/** A latency percentile in ms, `-` for a case without per-request latency (interleavings, n/a, broken). */
export function latencyCell(c: CaseResult, percentile: 'p50' | 'p95' | 'p99' | 'max'): string {
  return isMeasured(c) && c.latency ? String(c.latency[percentile]) : '-';
}

const TIMING_HEADERS = ['duration (s)', 'latency p50 (ms)', 'latency p99 (ms)'];

/** Measured and broken cases; `n/a` ones are summed up by `notApplicableLine`. Wide: report.md. */
export function caseTable(all: readonly CaseResult[]): TableData {
  const cases = all.filter((c) => c.status !== 'n/a');
  return {
    headers: [
      'case',
      'expect',
      'status',
      PHASES_HEADER,
      ...INVARIANT_COLUMNS.map((k) => INVARIANT_HEADERS[k]),
      ...TIMING_HEADERS,
    ],
    rows: cases.map((c) => [
      c.id,
      c.expect,
      c.status,
      phasesCell(c),
      ...INVARIANT_COLUMNS.map((k) => (isMeasured(c) ? String(c.invariants[k] ?? '-') : '-')),
      durationCell(c),
      latencyCell(c, 'p50'),
      latencyCell(c, 'p99'),
    ]),
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

/** Design × version (`run --postgres 15,18`): each cell the verdict, an n/a's reason, the steps blocked. */
export function versionTable(rows: readonly VersionRow[]): TableData {
  const versions = [...new Set(rows.map((r) => r.postgres))];
  const designs = [...new Set(rows.map((r) => r.strategy))];
  const cell = (r: VersionRow | undefined) => {
    if (!r) return '-';
    const verdict = r.status === 'n/a' ? `n/a: ${r.reason ?? ''}` : r.status;
    return r.blocked.length > 0 ? `${verdict}; blocked: ${r.blocked.join('; ')}` : verdict;
  };
  return {
    headers: ['design', ...versions.map((v) => `PostgreSQL ${v}`)],
    rows: designs.map((d) => [
      d,
      ...versions.map((v) => cell(rows.find((r) => r.strategy === d && r.postgres === v))),
    ]),
  };
}

export function notApplicableLine(cases: readonly CaseResult[]): string | undefined {
  const skipped = cases.filter((c) => c.status === 'n/a');
  if (skipped.length === 0) return undefined;
  const gaps = skipped.filter((c) => c.coverage.missing.length > 0).length;
  // A control sitting out a scenario not meant to catch it; anything else n/a sits out for a reason outside
  // the design (a black box that cannot reach what the scenario needs, a server the run cannot restart).
  const controls = skipped.filter((c) => c.coverage.missing.length === 0 && c.expect === 'violate').length;
  const other = skipped.length - gaps - controls;
  const outside =
    other > 0
      ? `, ${other} that need what the run cannot give the design (a newer PostgreSQL, a database restart, access a black box lacks)`
      : '';
  return `n/a: ${skipped.length} case(s): ${controls} where a negative control sits out a scenario not meant to catch it, ${gaps} not covered for lack of an operation or pause point (the boundary table names them)${outside}; reasons in report.json`;
}
