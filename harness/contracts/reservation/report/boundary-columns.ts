/**
 * The reservation contract's boundary table in columns, one fact a line: per design how it stays correct,
 * how many cases held, where it breaks (each scenario with the count that shows it, marked as the matrix
 * marks it), false sold-outs, waits and what it does not cover. Built from the case results and the boundary
 * rows at render time, so a saved report.json renders the same table again. Also the contract's reading of
 * its cases for the matrix (case-matrix.ts).
 */
import { caseMark, type DetailReading, MARKS } from '../../../contract/case-matrix.ts';
import type { TableData } from '../../../contract/contract.ts';
import { formatOutcomes, formatPhases, isCoverageGap, isMeasured } from '../../../verdict/case-result.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import type { Invariants } from '../verdict/invariants.ts';
import { type BoundaryRow, unsafeEntries } from './boundary.ts';

/** The count a check measured in a case, when it is one of the invariants. */
function checkCount(c: CaseResult, check: string): number | undefined {
  if (!isMeasured(c)) return undefined;
  const value = c.invariants[check as keyof Invariants];
  return typeof value === 'number' ? value : undefined;
}

/** A passing case of a safe design that measured a boundary: a broken count it reports, or a false sold-out. */
function measuredBoundary(c: CaseResult): { what: string; count: number } | undefined {
  if (!isMeasured(c) || c.status !== 'pass' || c.expect === 'violate') return undefined;
  const [first] = unsafeEntries(c.invariants);
  if (first) return { what: first[0], count: first[1] };
  return c.invariants.falseSoldOut > 0
    ? { what: 'falseSoldOut', count: c.invariants.falseSoldOut }
    : undefined;
}

/** What a reservation case counted, a line each: answers per phase, the stock, the counts that are not 0. */
function facts(c: CaseResult): string[] {
  if (c.status === 'n/a')
    return c.coverage.missing.length > 0 ? [`missing: ${c.coverage.missing.join(', ')}`] : [];
  if (!isMeasured(c)) return [`outcomes: ${formatOutcomes(c.outcomes)}`];
  const off = Object.entries(c.invariants).filter(
    ([k, v]) => !['total', 'available', 'active'].includes(k) && v !== 0 && v !== true && v !== undefined,
  );
  return [
    `outcomes: ${formatPhases(c.phases)}`,
    `stock: total ${c.invariants.total}, available ${c.invariants.available}, active ${c.invariants.active}`,
    `counts not 0: ${off.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    ...(c.latency ? [`latency (ms): p50 ${c.latency.p50}, p99 ${c.latency.p99}, max ${c.latency.max}`] : []),
  ];
}

export const RESERVATION_READING: DetailReading<CaseResult> = {
  checkCount,
  measuredBoundary,
  notCovered: isCoverageGap,
  facts,
};

/** `oversold 110`: the first fired check with its count, else the checks that fired, else the first problem. */
function firedFact(c: CaseResult): string {
  if (c.status === 'broken' || c.status === 'n/a') return 'could not run';
  for (const check of c.fired) {
    const count = checkCount(c, check);
    if (count !== undefined && count !== 0) return `${check} ${count}`;
  }
  return c.fired[0] ?? c.problems[0] ?? c.boundary;
}

/** A case's line in the breaks column (`△ db-crash-async: lostAcknowledged 45`), or none. */
function breakLine(c: CaseResult): string | undefined {
  if (c.status === 'n/a') return undefined;
  if (c.status === 'broken') return `${MARKS.broken.symbol} ${c.scenario}: could not run`;
  if (c.status === 'fail') return `${MARKS.broke.symbol} ${c.scenario}: ${firedFact(c)}`;
  if (c.expect === 'violate') return `${MARKS.caught.symbol} ${c.scenario}: ${firedFact(c)}`;
  const [unsafe] = unsafeEntries(c.invariants);
  return unsafe ? `${MARKS.boundary.symbol} ${c.scenario}: ${unsafe[0]} ${unsafe[1]}` : undefined;
}

/** Each line once, the first case's, with how many cases of the design showed the same scenario's line. */
function linesOnce(own: readonly CaseResult[], line: (c: CaseResult) => string | undefined): string[] {
  const seen = new Map<string, { text: string; cases: number }>();
  for (const c of own) {
    const text = line(c);
    if (text === undefined) continue;
    const key = c.id.replace(/#\d+$/, '');
    const before = seen.get(key);
    if (before) before.cases += 1;
    else seen.set(key, { text, cases: 1 });
  }
  return [...seen.values()].map((s) => (s.cases > 1 ? `${s.text} (${s.cases} cases)` : s.text));
}

export const BOUNDARY_COLUMNS = [
  'design',
  'expect',
  'how it stays correct',
  'held (✓)',
  'breaks (scenario: count)',
  'false sold-out',
  'waits (first case)',
  'not covered',
];

function columnsOf(row: BoundaryRow, own: readonly CaseResult[]): Record<string, string> {
  const measured = own.filter(isMeasured);
  const kept = measured.filter((c) => caseMark(c, RESERVATION_READING) === 'held').length;
  const breaks = linesOnce(own, breakLine);
  const falseSoldOut = linesOnce(own, (c) =>
    isMeasured(c) && c.expect !== 'violate' && c.invariants.falseSoldOut > 0
      ? `${c.scenario}: ${c.invariants.falseSoldOut}`
      : undefined,
  );
  const waits = row.waits ? `${row.waits.shownBy.split('/')[0]}: ${row.waits.what.replace(/^.*: /, '')}` : '';
  return {
    design: row.strategy,
    expect: row.expect,
    'how it stays correct': row.guarantee,
    'held (✓)': row.expect === 'violate' ? 'control' : `${kept} of ${measured.length}`,
    'breaks (scenario: count)': breaks.join('\n') || (row.expect === 'violate' ? 'NOT caught' : 'none'),
    'false sold-out': falseSoldOut.join('\n') || '-',
    'waits (first case)': row.waits
      ? `${waits}${row.waits.cases > 1 ? ` (${row.waits.cases} cases)` : ''}`
      : '-',
    'not covered': row.notCovered.map((gap) => gap.replace(/ — .*$/, '')).join(', ') || '-',
  };
}

/** The table, of the columns named (default all; the terminal leaves out the longest ones). */
export function boundaryColumnsTable(
  rows: readonly BoundaryRow[],
  cases: readonly CaseResult[],
  columns: readonly string[] = BOUNDARY_COLUMNS,
): TableData {
  return {
    headers: [...columns],
    rows: rows.map((row) => {
      const cells = columnsOf(
        row,
        cases.filter((c) => c.strategy === row.strategy),
      );
      return columns.map((column) => cells[column] ?? '-');
    }),
  };
}
