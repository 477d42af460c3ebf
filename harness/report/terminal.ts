/** Human output on the terminal: a line per finished case while running, then the two tables. */
import Table from 'cli-table3';
import { type CaseResult, formatOutcomes } from '../verdict/case-result.ts';
import type { Report } from './report.ts';
import {
  boundaryTable,
  caseTable,
  coverageGapLines,
  isolationTable,
  notApplicableLine,
  type TableData,
} from './result-tables.ts';

function render(table: TableData, wrapColumns: readonly number[] = []): string {
  const widths = table.headers.map((_, i) => (wrapColumns.includes(i) ? 40 : null));
  const t = new Table({
    head: table.headers,
    wordWrap: true,
    colWidths: widths,
    style: { head: [], border: [] },
  });
  t.push(...table.rows);
  return t.toString();
}

export function caseLine(c: CaseResult): string {
  const mark = { pass: 'ok  ', fail: 'FAIL', broken: 'FAIL', 'n/a': 'n/a ' }[c.status];
  return `${mark} ${c.id} (${c.expect}) ${formatOutcomes(c.outcomes)} — ${c.boundary}`;
}

export function renderTerminal(report: Report): string {
  return [
    render(caseTable(report.cases)),
    notApplicableLine(report.cases) ?? '',
    ...coverageGapLines(report.coverage),
    '',
    ...(report.isolation.length > 0
      ? ['Isolation matrix', render(isolationTable(report.isolation), [4, 7]), '']
      : []),
    'Boundary table',
    render(boundaryTable(report.boundary), [2, 3, 4]),
    '',
    ...(report.uncovered.length > 0
      ? [`NOT ok: ${report.uncovered.length} case(s) not covered and --require-coverage was given (exit 1)`]
      : []),
    report.ok ? 'ok: every case met its expectation' : 'NOT ok: a case missed its expectation (exit 1)',
  ].join('\n');
}
