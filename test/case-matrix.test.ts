/**
 * The reviewer's view of a whole run, drawn from the committed full run (reports/examples/run/report.json), no
 * database: the matrix has a cell per design × scenario with the mark its cases earn, every cell of report.md
 * links to its case's own heading, the boundary table holds one fact a line, and the terminal says what a run
 * showed in few lines besides its tables, every line within TERMINAL_COLUMNS.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caseMatrix, cellText, MARKS } from '../harness/contract/case-matrix.ts';
import {
  boundaryColumnsTable,
  RESERVATION_READING,
} from '../harness/contracts/reservation/report/boundary-columns.ts';
import { headingSlug, slugger } from '../harness/report/heading-slug.ts';
import { type Report, renderMarkdown } from '../harness/report/report.ts';
import { renderTerminal, TERMINAL_COLUMNS } from '../harness/report/terminal.ts';
import { EXAMPLE_REPORTS } from '../scripts/example-reports.ts';

const full = JSON.parse(readFileSync(`${EXAMPLE_REPORTS}/run/report.json`, 'utf8')) as Report;
const matrix = caseMatrix(full.cases, RESERVATION_READING);
const cell = (design: string, scenario: string) => cellText(matrix.cells[design]?.[scenario]);

describe('the matrix of a full run', () => {
  it('has every design × scenario that ran, each cell one symbol and one number', () => {
    expect(matrix.designs).toHaveLength(new Set(full.cases.map((c) => c.strategy)).size);
    expect(matrix.scenarios).toHaveLength(new Set(full.cases.map((c) => c.scenario)).size);
    expect(cell('hot-row', 'contention')).toBe('✓150');
    expect(cell('check-then-act', 'contention')).toBe('◆110');
    expect(cell('check-then-act', 'expiry')).toBe('·');
    expect(cell('memory-quota', 'expiry')).toBe('○');
    expect(cell('hot-row', 'db-crash-async')).toMatch(/^△\d+$/);
    const symbols = Object.values(MARKS).map((m) => m.symbol);
    for (const design of matrix.designs)
      for (const scenario of matrix.scenarios)
        expect(cell(design, scenario)).toMatch(new RegExp(`^[${symbols.join('')}]\\d*$`));
  });

  it('marks a control that was not caught above what else its cell holds', () => {
    const caught = full.cases.find((c) => c.id === 'contention/check-then-act');
    if (caught?.status !== 'pass') throw new Error('the example lost its caught control');
    const notCaught = { ...caught, id: `${caught.id}#2`, status: 'fail' as const, fired: [] };
    const broke = caseMatrix([caught, notCaught], RESERVATION_READING).cells['check-then-act']?.contention;
    expect(broke).toMatchObject({ mark: 'broke', shownBy: notCaught.id, cases: [caught.id, notCaught.id] });
  });

  it('links each cell of report.md to its case heading, as GitHub names the heading', () => {
    const markdown = renderMarkdown(full);
    const slug = slugger();
    const anchors = new Set(
      markdown
        .split('\n')
        .filter((line) => /^#{1,6} /.test(line))
        .map((line) => slug(line.replace(/^#+ /, '').replace(/`/g, ''))),
    );
    const links = [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] ?? '');
    const cells = Object.values(matrix.cells).flatMap((row) => Object.values(row)).length;
    expect(links.length).toBeGreaterThanOrEqual(cells);
    for (const link of links) expect(anchors.has(link), link).toBe(true);
    expect(headingSlug('◆ contention/check-then-act')).toBe('-contentioncheck-then-act');
  });
});

describe('the boundary table in columns', () => {
  it('holds one fact a line: cases held, each break with its scenario and count, false sold-outs, waits', () => {
    const table = boundaryColumnsTable(full.boundary, full.cases);
    const row = (design: string) =>
      Object.fromEntries(table.headers.map((h, i) => [h, table.rows.find((r) => r[0] === design)?.[i]]));
    expect(row('check-then-act')['breaks (scenario: count)']).toContain('◆ contention: oversold 110');
    expect(row('check-then-act')['held (✓)']).toBe('control');
    expect(row('hot-row')['held (✓)']).toMatch(/^\d+ of \d+$/);
    expect(row('hot-row')['breaks (scenario: count)']).toMatch(/^△ db-crash-async: lostAcknowledged \d+$/);
    expect(row('skip-locked-slots')['false sold-out']).toContain('false-sold-out: 1');
    for (const cells of table.rows)
      for (const line of cells.slice(3, 7).flatMap((c) => c.split('\n')))
        expect(line.length).toBeLessThan(60);
  });
});

describe('the terminal after a full run', () => {
  const terminal = renderTerminal(full);
  const lines = terminal.split('\n');
  const isTable = (line: string) => /^[┌│├└]/.test(line);

  it('says what the run showed in at most 60 lines besides its tables, none wider than the terminal', () => {
    expect(lines.filter((line) => !isTable(line)).length).toBeLessThanOrEqual(60);
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(TERMINAL_COLUMNS);
    expect(terminal).toContain('Matrix — reservations');
    expect(terminal).toContain('Matrix — payments');
    expect(terminal).toMatch(/ok: every case met its expectation$/);
  });
});
