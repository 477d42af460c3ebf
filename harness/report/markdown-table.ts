/**
 * The one way the reports write a Markdown table: markdown-table's aligned columns, with every cell made
 * safe first. A `|` in a cell (a design's name, a problem's text) would split it into two cells, and a
 * line break would end the row; so `|` becomes `\|` (the backslashes right before it doubled, so that they
 * stay text and do not escape it), and a line break `<br>`, the one tag report.html keeps inside a cell.
 */
import { markdownTable as alignedTable, type Options } from 'markdown-table';

export const markdownCell = (text: string) =>
  text.replace(/(\\*)\|/g, (_, slashes: string) => `${slashes}${slashes}\\|`).replace(/\r\n|\r|\n/g, '<br>');

export function markdownTable(rows: readonly (readonly string[])[], options?: Options): string {
  return alignedTable(
    rows.map((row) => row.map(markdownCell)),
    options,
  );
}
