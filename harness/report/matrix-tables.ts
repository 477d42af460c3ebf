/**
 * The matrix as tables: in report.md one grid with the scenarios' names across; on the terminal the same
 * grid with the scenarios numbered (their names in a key above it), cut into as many grids as it takes to
 * fit the terminal's width.
 */
import stringWidth from 'string-width';
import { cellText, type Matrix, type MatrixCell } from '../contract/case-matrix.ts';
import type { TableData } from '../contract/contract.ts';
import { renderBoxTable } from './box-table.ts';

/** The grid; with `links` (case id → its heading's anchor) each cell links to the case it shows. */
export function matrixTable(matrix: Matrix, links?: ReadonlyMap<string, string>): TableData {
  const text = (cell: MatrixCell | undefined) => {
    const anchor = cell && links?.get(cell.shownBy);
    return anchor ? `[${cellText(cell)}](#${anchor})` : cellText(cell);
  };
  return {
    headers: ['design', ...matrix.scenarios],
    rows: matrix.designs.map((d) => [d, ...matrix.scenarios.map((s) => text(matrix.cells[d]?.[s]))]),
  };
}

/** `1 backend-killed · 2 commit-ack-lost · …`: the terminal grid's column numbers. */
function scenarioKey(matrix: Matrix): string {
  return matrix.scenarios.map((s, i) => `${i + 1}\u00a0${s}`).join(' · ');
}

/**
 * The grid for a terminal `columns` wide: the scenarios' names across when they fit in one grid; else
 * numbered, with their names in a key, in as many grids as it takes.
 */
export function terminalMatrix(matrix: Matrix, columns: number): { key?: string; grids: string[] } {
  const cells = matrixTable(matrix).rows.map((row) => row.slice(1));
  const designWidth = Math.max(6, ...matrix.designs.map((d) => d.length)) + 2;
  const cellWidth = (i: number) => Math.max(...cells.map((row) => stringWidth(row[i] ?? ''))) + 1;
  const named = (i: number) => Math.max(cellWidth(i), (matrix.scenarios[i] ?? '').length + 1);
  const wholeWidth = matrix.scenarios.reduce((sum, _, i) => sum + named(i) + 1, designWidth + 2);
  const byName = wholeWidth <= columns;
  const heading = (i: number) => (byName ? (matrix.scenarios[i] ?? '') : String(i + 1));
  const widthOf = (i: number) => (byName ? named(i) : Math.max(String(i + 1).length, cellWidth(i) - 1) + 1);
  const grids: string[] = [];
  let start = 0;
  while (start < matrix.scenarios.length) {
    let end = start;
    let used = designWidth + 2;
    while (end < matrix.scenarios.length && (end === start || used + widthOf(end) + 1 <= columns)) {
      used += widthOf(end) + 1;
      end += 1;
    }
    const span = matrix.scenarios.slice(start, end).map((_, i) => start + i);
    grids.push(
      renderBoxTable({
        head: [' design', ...span.map(heading)],
        rows: matrix.designs.map((d, r) => [` ${d}`, ...span.map((i) => cells[r]?.[i] ?? '')]),
        colWidths: [designWidth, ...span.map(widthOf)],
        compact: true,
        padding: 0,
      }),
    );
    start = end;
  }
  return byName ? { grids } : { key: `scenarios: ${scenarioKey(matrix)}`, grids };
}
