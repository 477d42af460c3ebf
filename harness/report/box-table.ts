/**
 * A table drawn in box characters for the terminal, as cli-table3 drew it with its default characters and
 * no colour: a header row, a rule between every two rows, one space of padding each side. Ours because
 * cli-table3 truncates a cell's whole text to 10 characters for a debug line on every line it draws, one
 * character at a time: quadratic in a cell's length, the boundary table of a full run took longer than the
 * run itself. Widths are display
 * columns (string-width: a CJK character takes two), so a user's data in `sql` lines up too.
 */
import stringWidth from 'string-width';

export interface BoxTable {
  /** The header cells; none: no header row. */
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /**
   * Each column's width, padding included; a line of a cell wider than its room is cut with `…`.
   * Default: the column's widest line, plus the padding.
   */
  colWidths?: readonly number[];
}

const PADDING = 1;

function naturalWidths(lines: readonly (readonly string[])[]): number[] {
  const widths: number[] = [];
  for (const row of lines)
    row.forEach((cell, i) => {
      const widest = Math.max(0, ...cell.split('\n').map((line) => stringWidth(line)));
      widths[i] = Math.max(widths[i] ?? 0, widest + 2 * PADDING);
    });
  return widths;
}

/** `line` within `room` display columns, its end replaced by `…` when it had to be cut. */
function fitted(line: string, room: number): string {
  if (stringWidth(line) <= room) return line;
  let cut = '';
  for (const char of line) {
    if (stringWidth(`${cut}${char}…`) > room) break;
    cut += char;
  }
  return `${cut}…`;
}

/** One table row: its cells side by side, as many lines tall as its tallest cell. */
function drawRow(cells: readonly string[], widths: readonly number[]): string[] {
  const lines = widths.map((_, i) => (cells[i] ?? '').split('\n'));
  const height = Math.max(1, ...lines.map((cell) => cell.length));
  const drawn: string[] = [];
  for (let at = 0; at < height; at++) {
    const parts = widths.map((width, i) => {
      const room = Math.max(0, width - 2 * PADDING);
      const text = fitted(lines[i]?.[at] ?? '', room);
      return `${' '.repeat(PADDING)}${text}${' '.repeat(room - stringWidth(text) + PADDING)}`;
    });
    drawn.push(`│${parts.join('│')}│`);
  }
  return drawn;
}

export function renderBoxTable(table: BoxTable): string {
  const all = table.head.length > 0 ? [table.head, ...table.rows] : table.rows;
  const natural = naturalWidths(all);
  const widths = natural.map((w, i) => table.colWidths?.[i] ?? w);
  const rule = (left: string, mid: string, right: string) =>
    `${left}${widths.map((w) => '─'.repeat(w)).join(mid)}${right}`;
  const lines = [rule('┌', '┬', '┐')];
  all.forEach((row, i) => {
    if (i > 0) lines.push(rule('├', '┼', '┤'));
    lines.push(...drawRow(row, widths));
  });
  lines.push(rule('└', '┴', '┘'));
  return lines.join('\n');
}
