/**
 * Human output on the terminal: a line per finished case while running, then the tables. Everything fits
 * TERMINAL_COLUMNS: the case table takes its narrow form, cells wrap inside their column (at spaces, else
 * after a `/`, `-` or `,`), and long lines wrap with an indent. report.md keeps the wide tables.
 */

import { commitsLine } from '../database/durability.ts';
import { type CaseResult, formatOutcomes, isMeasured } from '../verdict/case-result.ts';
import { httpTable, scenarioTable, targetLines } from './black-box-report.ts';
import { renderBoxTable } from './box-table.ts';
import { paymentBoundaryTable, paymentCaseTable } from './payment-report.ts';
import type { Report } from './report.ts';
import {
  BOUNDARY_HEADER,
  boundaryTable,
  caseTableNarrow,
  coverageGapLines,
  isolationTable,
  notApplicableLine,
  PHASES_NOTE,
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

function render(table: TableData, caps: readonly (number | undefined)[] = []): string {
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

export function renderTerminal(report: Report): string {
  const notApplicable = notApplicableLine(report.cases);
  return [
    ...(report.environment.database === 'target' ? [] : [prose(commitsLine(report.environment.settings))]),
    prose(PHASES_NOTE.replace(/`/g, '')),
    render(caseTableNarrow(report.cases), [30, undefined, 24, 14]),
    ...(notApplicable ? [prose(notApplicable)] : []),
    ...coverageGapLines(report.coverage).map((line) => prose(line)),
    '',
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
    prose(`Boundary table (${BOUNDARY_HEADER})`),
    render(boundaryTable(report.boundary, true), [24, 9, 38]),
    '',
    ...(report.payments.length > 0
      ? [
          'Payment contract (seed 002: one payment and one outbox row per idempotency key)',
          render(paymentCaseTable(report.payments), [34, 9, 7, 22, 9]),
          render(paymentBoundaryTable(report.paymentBoundary), [26, 9, 30, 34]),
          '',
        ]
      : []),
    ...(report.uncovered.length > 0
      ? [`NOT ok: ${report.uncovered.length} case(s) not covered and --require-coverage was given (exit 1)`]
      : []),
    report.ok
      ? 'ok: every case met its expectation'
      : !report.cases.some(isMeasured) && !report.payments.some(isMeasured)
        ? report.target
          ? 'NOT ok: no case ran against the target (exit 1)'
          : 'NOT ok: no case was measured, every one was n/a: a run that judged nothing does not pass (exit 1)'
        : 'NOT ok: a case missed its expectation (exit 1)',
  ].join('\n');
}
