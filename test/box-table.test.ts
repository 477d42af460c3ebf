/**
 * The terminal's box tables (harness/report/box-table.ts) draw as cli-table3 drew them: the case and
 * boundary tables, `bench` and `sql` print the same text as before; only the cost changed.
 */
import { describe, expect, it } from 'vitest';
import { renderBoxTable } from '../harness/report/box-table.ts';

describe('a box table', () => {
  it('draws a header, a rule between every two rows, cells as tall as their tallest line', () => {
    expect(
      renderBoxTable({
        head: ['design', 'verdict'],
        rows: [
          ['hot-row', 'held\ndrift 0'],
          ['check-then-act', 'caught'],
        ],
      }),
    ).toBe(
      [
        '┌────────────────┬─────────┐',
        '│ design         │ verdict │',
        '├────────────────┼─────────┤',
        '│ hot-row        │ held    │',
        '│                │ drift 0 │',
        '├────────────────┼─────────┤',
        '│ check-then-act │ caught  │',
        '└────────────────┴─────────┘',
      ].join('\n'),
    );
  });

  it('keeps the widths it is given, padding included, and cuts a longer line with …', () => {
    expect(renderBoxTable({ head: ['a'], rows: [['abcdefgh']], colWidths: [7] })).toBe(
      ['┌───────┐', '│ a     │', '├───────┤', '│ abcd… │', '└───────┘'].join('\n'),
    );
  });

  it('counts display columns: a CJK character takes two', () => {
    expect(renderBoxTable({ head: ['名前', 'n'], rows: [['ab', '1']] })).toBe(
      ['┌──────┬───┐', '│ 名前 │ n │', '├──────┼───┤', '│ ab   │ 1 │', '└──────┴───┘'].join('\n'),
    );
  });

  it('has no header row without header cells', () => {
    expect(renderBoxTable({ head: [], rows: [['x']] })).toBe(['┌───┐', '│ x │', '└───┘'].join('\n'));
  });
});
