/**
 * Human output on the terminal: what needs attention while the run goes on (run-action.ts), then per
 * contract its matrix and its designs' boundary table, the cases that failed, and the verdict. Every table
 * holds one fact a cell and fits TERMINAL_COLUMNS; report.md and report.json hold every case.
 */

import { legendLines, markCounts } from '../contract/case-matrix.ts';
import type { TableData, TerminalBlock } from '../contract/contract.ts';
import { CONTRACTS } from '../contracts/index.ts';
import { commitsLine } from '../database/durability.ts';
import type { AnyContract } from '../suite/suite.ts';
import { type CaseResultBase, failsTheRun, isMeasured } from '../verdict/case-result.ts';
import { renderBoxTable } from './box-table.ts';
import { type ContractMatrix, contractMatrices } from './contract-matrices.ts';
import { terminalMatrix } from './matrix-tables.ts';
import { type Report, reportedCases } from './report.ts';

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

/** One case's line while the run goes on, as its contract writes it, wrapped to the terminal. */
export function caseLine(contract: AnyContract, c: CaseResultBase): string {
  return prose(contract.report.caseLine(c), '     ');
}

/** A contract's terminal blocks: prose wrapped to the terminal, tables fitted to it. */
function terminalLines(blocks: readonly TerminalBlock[]): string[] {
  return blocks.map((block) => (typeof block === 'string' ? prose(block) : render(block.table, block.caps)));
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

/** The cases that failed the run, one line each (each was printed as it finished too). */
function failureLines(report: Report): string[] {
  const failed = CONTRACTS.flatMap((contract) =>
    contract.report
      .casesOf(report)
      .filter(failsTheRun)
      .map((c: CaseResultBase) => caseLine(contract, c)),
  );
  return failed.length > 0 ? [`Failures (${failed.length})`, ...failed, ''] : [];
}

function verdictLine(report: Report): string {
  if (report.ok) return 'ok: every case met its expectation';
  if (report.unhandledErrors)
    return `NOT ok: ${report.unhandledErrors} error(s) went unhandled during the run, each named above (exit 1)`;
  if (!reportedCases(report).some(isMeasured))
    return report.environment.database === 'target'
      ? 'NOT ok: no case ran against the target (exit 1)'
      : 'NOT ok: no case was measured, every one was n/a: a run that judged nothing does not pass (exit 1)';
  return 'NOT ok: a case missed its expectation (exit 1)';
}

export function renderTerminal(report: Report): string {
  return [
    ...(report.environment.database === 'target'
      ? []
      : [prose(commitsLine(report.environment.settings)), '']),
    ...contractMatrices(report).flatMap(matrixLines),
    ...CONTRACTS.flatMap((contract) => terminalLines(contract.report.terminal(report))),
    ...CONTRACTS.flatMap((contract: AnyContract) =>
      terminalLines(contract.report.after?.terminal(report) ?? []),
    ),
    ...failureLines(report),
    ...(report.uncovered.length > 0
      ? [`NOT ok: ${report.uncovered.length} case(s) not covered and --require-coverage was given (exit 1)`]
      : []),
    verdictLine(report),
  ].join('\n');
}
