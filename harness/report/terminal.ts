/**
 * Human output on the terminal: what needs attention while the run goes on (run-command.ts), then per
 * contract its matrix and its designs' boundary table, the cases that failed, and the verdict. Every table
 * holds one fact a cell and fits TERMINAL_COLUMNS; report.md and report.json hold every case.
 */

import { commitsLine } from '../database/durability.ts';
import { type CaseResult, failsTheRun, formatOutcomes, isMeasured } from '../verdict/case-result.ts';
import { paymentFailsTheRun, paymentMeasured } from '../verdict/payment-case-result.ts';
import { httpTable, scenarioTable, targetLines } from './black-box-report.ts';
import { boundaryColumnsTable } from './boundary-columns.ts';
import { renderBoxTable } from './box-table.ts';
import { legendLines, markCounts } from './case-matrix.ts';
import { type ContractMatrix, contractMatrices } from './contract-matrices.ts';
import { designColumnsTable, terminalMatrix } from './matrix-tables.ts';
import { paymentCaseLine } from './payment-report.ts';
import type { Report } from './report-schema.ts';
import {
  coverageGapLines,
  isolationTable,
  notApplicableLine,
  phasesCell,
  type TableData,
  versionTable,
} from './result-tables.ts';

/** The width every line the terminal output prints stays within. */
export const TERMINAL_COLUMNS = 120;

/** One over-long word cut where it reads best: after the last `/`, `-`, `,` or `·` that fits, else hard. */
function cutWord(word: string, width: number): [string, string] {
  const head = word.slice(0, width);
  const at = Math.max(...['/', '-', ',', '·', '_', '@', '#'].map((mark) => head.lastIndexOf(mark)));
  const cut = at > 0 ? at + 1 : width;
  return [word.slice(0, cut), word.slice(cut)];
}

/** `text` in lines of at most `width` characters, its own line breaks kept; `indent` starts every later line. */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  const room = () => Math.max(1, width - (lines.length > 0 ? indent.length : 0));
  const flush = (line: string) => lines.push(`${lines.length > 0 ? indent : ''}${line}`);
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (let word of paragraph.split(' ')) {
      for (;;) {
        const candidate = line === '' ? word : `${line} ${word}`;
        if (candidate.length <= room()) {
          line = candidate;
          break;
        }
        if (line !== '') {
          flush(line);
          line = '';
          continue;
        }
        const [head, rest] = cutWord(word, room());
        flush(head);
        word = rest;
      }
    }
    flush(line);
  }
  return lines;
}

/**
 * Column widths that fit `columns` (borders included): each column its natural width (its longest line,
 * padding included) or its cap when it has one, then the widest ones capped at one common width until the
 * sum fits (water-filling), never below `floor`.
 */
export function fitWidths(
  table: TableData,
  columns = TERMINAL_COLUMNS,
  caps: readonly (number | undefined)[] = [],
  floor = 8,
): number[] {
  const natural = table.headers.map((header, i) =>
    Math.min(
      caps[i] ?? Number.POSITIVE_INFINITY,
      Math.max(
        ...[header, ...table.rows.map((row) => row[i] ?? '')].flatMap((cell) =>
          cell.split('\n').map((line) => line.length),
        ),
      ) + 2,
    ),
  );
  const budget = columns - (natural.length + 1);
  const sum = (cap: number) => natural.reduce((acc, w) => acc + Math.min(w, cap), 0);
  if (sum(Number.POSITIVE_INFINITY) <= budget) return natural;
  let cap = floor;
  while (sum(cap + 1) <= budget) cap += 1;
  const widths = natural.map((w) => Math.min(w, cap));
  // What the common cap left over goes to the first capped columns, one character each.
  let spare = budget - widths.reduce((a, b) => a + b, 0);
  for (let i = 0; i < widths.length && spare > 0; i++) {
    if ((natural[i] ?? 0) > (widths[i] ?? 0)) {
      widths[i] = (widths[i] ?? 0) + 1;
      spare -= 1;
    }
  }
  return widths;
}

/** A table drawn for the terminal: each column within its cap, the whole within TERMINAL_COLUMNS. */
export function render(table: TableData, caps: readonly (number | undefined)[] = []): string {
  const widths = fitWidths(table, TERMINAL_COLUMNS, caps);
  const wrap = (cell: string, i: number) => wrapText(cell, (widths[i] ?? 10) - 2).join('\n');
  return renderBoxTable({
    head: table.headers.map(wrap),
    rows: table.rows.map((row) => row.map(wrap)),
    colWidths: widths,
  });
}

/** A line of prose, wrapped to the terminal with its continuation lines indented. */
function prose(text: string, indent = '  '): string {
  return wrapText(text, TERMINAL_COLUMNS, indent).join('\n');
}

export function caseLine(c: CaseResult): string {
  const mark = { pass: 'ok  ', fail: 'FAIL', broken: 'FAIL', 'n/a': 'n/a ' }[c.status];
  // The verdict line of a case that held starts with its outcomes summed over the phases; the line shows
  // them per phase already, so the sum is left out rather than read as one more phase.
  const summed = `held: ${formatOutcomes(c.outcomes)}; `;
  const verdict = c.boundary.startsWith(summed) ? `held: ${c.boundary.slice(summed.length)}` : c.boundary;
  return prose(`${mark} ${c.id} (${c.expect}) ${phasesCell(c)} — ${verdict}`, '     ');
}

/** One contract's matrix: its counts, the scenario key, the grids and the legend of the marks it uses. */
function matrixLines({ contract, promise, matrix }: ContractMatrix): string[] {
  const { key, grids } = terminalMatrix(matrix, TERMINAL_COLUMNS);
  return [
    prose(
      `Matrix — ${contract} (${promise}): ${matrix.designs.length} designs × ${matrix.scenarios.length} scenarios; ${markCounts(matrix)}`,
    ),
    ...(key ? [prose(key)] : []),
    ...grids,
    ...legendLines(matrix).map((line) => prose(line)),
    '',
  ];
}

/** The boundary table's columns that fit the terminal; what a design does not cover follows as lines. */
const TERMINAL_BOUNDARY = [
  'design',
  'held (✓)',
  'breaks (scenario: count)',
  'false sold-out',
  'waits (first case)',
];

/** The boundary tables: reservations in columns, payments from their matrix. */
function boundaryLines(report: Report, matrices: readonly ContractMatrix[]): string[] {
  const payments = matrices.find((m) => m.contract === 'payments');
  return [
    ...(report.boundary.length > 0
      ? [
          'Boundary — reservations (per design: cases held, where it breaks, false sold-out, waits)',
          render(
            boundaryColumnsTable(report.boundary, report.cases, TERMINAL_BOUNDARY),
            [22, 10, 36, 24, 26],
          ),
          ...coverageGapLines(report.coverage).map((line) => prose(line.replace(/ — [^,]*/g, ''))),
          '',
        ]
      : []),
    ...(payments
      ? [
          'Boundary — payments',
          render(designColumnsTable(report.paymentBoundary, payments.matrix, false), [30, 10, 60]),
          '',
        ]
      : []),
  ];
}

/** The cases that failed the run, one line each (each was printed as it finished too). */
function failureLines(report: Report): string[] {
  const failed = [
    ...report.cases.filter(failsTheRun).map((c) => caseLine(c)),
    ...report.payments.filter(paymentFailsTheRun).map((c) => prose(paymentCaseLine(c), '     ')),
  ];
  return failed.length > 0 ? [`Failures (${failed.length})`, ...failed, ''] : [];
}

function verdictLine(report: Report): string {
  if (report.ok) return 'ok: every case met its expectation';
  if (report.unhandledErrors)
    return `NOT ok: ${report.unhandledErrors} error(s) went unhandled during the run, each named above (exit 1)`;
  if (!report.cases.some(isMeasured) && !report.payments.some(paymentMeasured))
    return report.target
      ? 'NOT ok: no case ran against the target (exit 1)'
      : 'NOT ok: no case was measured, every one was n/a: a run that judged nothing does not pass (exit 1)';
  return 'NOT ok: a case missed its expectation (exit 1)';
}

export function renderTerminal(report: Report): string {
  const notApplicable = notApplicableLine(report.cases);
  const matrices = contractMatrices(report);
  return [
    ...(report.environment.database === 'target'
      ? []
      : [prose(commitsLine(report.environment.settings)), '']),
    ...matrices.flatMap(matrixLines),
    ...boundaryLines(report, matrices),
    ...(notApplicable ? [prose(notApplicable), ''] : []),
    ...(report.target
      ? [
          ...targetLines(report).map((line) => prose(line)),
          render(scenarioTable(report), [28, 13]),
          'HTTP exchanges per endpoint (every attempt; latency per exchange)',
          render(httpTable(report.target.http)),
          '',
        ]
      : []),
    ...(report.isolation.length > 0
      ? ['Isolation matrix', render(isolationTable(report.isolation)), '']
      : []),
    ...(report.versions.length > 0 ? ['Version matrix', render(versionTable(report.versions)), ''] : []),
    ...failureLines(report),
    ...(report.uncovered.length > 0
      ? [`NOT ok: ${report.uncovered.length} case(s) not covered and --require-coverage was given (exit 1)`]
      : []),
    verdictLine(report),
  ].join('\n');
}
