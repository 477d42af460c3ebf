/**
 * A table drawn in box characters for the terminal, by cli-table3 with its default characters and no
 * colour: a header row, a rule between every two rows (none in a compact table), one space of padding each
 * side. Widths are display columns (string-width: a CJK character takes two), so a user's data in `sql`
 * lines up too.
 *
 * cli-table3 truncates a cell's whole text for a debug line on every line it draws, one character at a time
 * when the text is wider in characters than in columns (a line break is one of each): the cost grows with the
 * cube of a cell's length. The tables give it cells of one fact each, a few words, where that costs nothing
 * (`npm run terminal-bench` measures the tables of a full run).
 */
import Table from 'cli-table3';

export interface BoxTable {
  /** The header cells; none: no header row. */
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /**
   * Each column's width, padding included; a line of a cell wider than its room is cut with `…`.
   * Default: the column's widest line, plus the padding.
   */
  colWidths?: readonly number[];
  /** No rule between two body rows: a grid of short cells reads as one block. */
  compact?: boolean;
  /** Spaces each side of a cell's text (default 1). */
  padding?: number;
}

export function renderBoxTable(table: BoxTable): string {
  const drawn = new Table({
    head: [...table.head],
    ...(table.colWidths ? { colWidths: [...table.colWidths] } : {}),
    style: {
      head: [],
      border: [],
      compact: table.compact ?? false,
      'padding-left': table.padding ?? 1,
      'padding-right': table.padding ?? 1,
    },
  });
  drawn.push(...table.rows.map((row) => [...row]));
  return drawn.toString();
}
