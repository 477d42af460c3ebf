/**
 * The matrix: one grid per contract, designs down and scenarios across, each cell one symbol and one number,
 * so the whole comparison reads at once (as Hermitage's grid does for isolation levels). It is built from the
 * case results alone, in the shape every contract's cases share; what only a contract knows (the count a
 * check measured, a boundary a passing case measured, a case not covered) it gives as a `MatrixReading`.
 */
import type { WitnessLine } from '../history/witness.ts';

/** The fields every contract's case result has (each contract's list of cases in report.json). */
export interface MatrixCase {
  id: string;
  scenario: string;
  strategy: string;
  expect: string;
  status: 'pass' | 'fail' | 'n/a' | 'broken';
  outcomes: Readonly<Record<string, number>>;
  fired?: readonly string[] | undefined;
  problems?: readonly string[] | undefined;
  isolation?: string | undefined;
  postgres?: string | undefined;
  exploration?: { programs: number } | undefined;
}

/** What a contract says about its own cases, for the matrix. */
export interface MatrixReading<C extends MatrixCase = MatrixCase> {
  /** The count a check measured in the case (`oversold` → 110), when the contract counts it. */
  checkCount(c: C, check: string): number | undefined;
  /** A boundary a passing case of a design measured instead of judging (lost acknowledgements), if any. */
  measuredBoundary(c: C): { what: string; count: number } | undefined;
  /** An n/a case that the design lacks an operation or pause point for (a coverage gap). */
  notCovered(c: C): boolean;
}

/** What report.md's case details show of a case's history check (its contract's HistorySummary). */
export interface DetailHistory {
  status: 'linearizable' | 'violation' | 'unchecked';
  operations: number;
  parts: number;
  reason?: string | undefined;
  summary?: string | undefined;
  witness?: readonly WitnessLine[] | undefined;
}

export interface DetailCase extends MatrixCase {
  boundary: string;
  durationMs?: number | undefined;
  reason?: string | undefined;
  history?: DetailHistory | undefined;
  exploration?: { programs: number; spec?: string | undefined } | undefined;
  keptSchema?: string | undefined;
}

/** A contract's reading, with the lines it says about a case's own counts. */
export interface DetailReading<C extends DetailCase = DetailCase> extends MatrixReading<C> {
  facts(c: C): string[];
}

export type CellMark = 'held' | 'boundary' | 'caught' | 'broke' | 'broken' | 'not covered' | 'sits out';

/** Each mark's symbol, and what it and its number mean (the legend under every grid). */
export const MARKS: Readonly<Record<CellMark, { symbol: string; means: string }>> = {
  held: { symbol: '✓', means: 'held every check (number: answers judged, or programs explored)' },
  boundary: {
    symbol: '△',
    means: 'held, and measured a boundary the scenario reports instead of judging (number: its count)',
  },
  caught: {
    symbol: '◆',
    means: "a negative control, caught (number: the first fired check's count, else how many checks fired)",
  },
  broke: {
    symbol: '✗',
    means:
      'missed its expectation: a check fired on a safe design, or a control was not caught (number: as for ◆)',
  },
  broken: { symbol: '!', means: 'could not run to its end (number: problems)' },
  'not covered': { symbol: '○', means: 'not covered: the design lacks an operation or pause point it needs' },
  'sits out': { symbol: '·', means: 'n/a: a control sitting out a scenario not meant to catch it' },
};

/** Which mark a cell of several cases (repetitions) shows: the one that says most about the design. */
const RANK: Readonly<Record<CellMark, number>> = {
  broke: 6,
  broken: 5,
  boundary: 4,
  caught: 3,
  'not covered': 2,
  held: 1,
  'sits out': 0,
};

export interface MatrixCell {
  mark: CellMark;
  /** Absent for a case that measured nothing (n/a). */
  figure?: number;
  /** What the number counts, where it is a check's or a boundary's: `oversold 110`. */
  fact?: string;
  /** The case the cell shows (its id), and every case of the cell. */
  shownBy: string;
  cases: string[];
}

export interface Matrix {
  designs: string[];
  /** Scenario ids, each with `@level` when the run had several isolation levels. */
  scenarios: string[];
  /** design → scenario → cell; a pair that ran no case has none. */
  cells: Record<string, Record<string, MatrixCell>>;
}

/** The first fired check's count, else how many checks fired, else how many problems the case had. */
function fired<C extends MatrixCase>(c: C, reading: MatrixReading<C>): { figure: number; fact: string } {
  for (const check of c.fired ?? []) {
    const count = reading.checkCount(c, check);
    if (count !== undefined && count !== 0) return { figure: Math.abs(count), fact: `${check} ${count}` };
  }
  const checks = c.fired ?? [];
  if (checks[0] !== undefined) return { figure: checks.length, fact: checks[0] };
  return { figure: c.problems?.length ?? 0, fact: c.problems?.[0] ?? 'no check named' };
}

const answers = (c: MatrixCase) => Object.values(c.outcomes).reduce((a, b) => a + b, 0);

function cellOf<C extends MatrixCase>(c: C, reading: MatrixReading<C>): Omit<MatrixCell, 'cases'> {
  const shownBy = c.id;
  if (c.status === 'n/a') return { mark: reading.notCovered(c) ? 'not covered' : 'sits out', shownBy };
  if (c.status === 'broken')
    return { mark: 'broken', figure: c.problems?.length ?? 0, fact: 'could not run', shownBy };
  if (c.expect === 'measure' && c.status === 'fail')
    return { mark: 'boundary', ...fired(c, reading), shownBy };
  if (c.status === 'fail') return { mark: 'broke', ...fired(c, reading), shownBy };
  if (c.expect === 'violate') return { mark: 'caught', ...fired(c, reading), shownBy };
  const boundary = reading.measuredBoundary(c);
  if (boundary)
    return { mark: 'boundary', figure: boundary.count, fact: `${boundary.what} ${boundary.count}`, shownBy };
  return { mark: 'held', figure: c.exploration?.programs ?? answers(c), shownBy };
}

/** The mark of one case, as its cell would show it alone. */
export function caseMark<C extends MatrixCase>(c: C, reading: MatrixReading<C>): CellMark {
  return cellOf(c, reading).mark;
}

const rowOf = (c: MatrixCase) => (c.postgres ? `${c.strategy} (PostgreSQL ${c.postgres})` : c.strategy);
const columnOf = (c: MatrixCase) => (c.isolation ? `${c.scenario}@${c.isolation}` : c.scenario);

export function caseMatrix<C extends MatrixCase>(cases: readonly C[], reading: MatrixReading<C>): Matrix {
  const designs: string[] = [];
  const scenarios: string[] = [];
  const cells: Matrix['cells'] = {};
  for (const c of cases) {
    const [design, scenario] = [rowOf(c), columnOf(c)];
    if (!designs.includes(design)) designs.push(design);
    if (!scenarios.includes(scenario)) scenarios.push(scenario);
    const row = cells[design] ?? {};
    cells[design] = row;
    const before = row[scenario];
    const cell = cellOf(c, reading);
    const ids = [...(before?.cases ?? []), c.id];
    row[scenario] =
      before && RANK[before.mark] >= RANK[cell.mark] ? { ...before, cases: ids } : { ...cell, cases: ids };
  }
  return { designs, scenarios, cells };
}

/** `✓150`, `◆110`, `○`: the cell as text. */
export function cellText(cell: MatrixCell | undefined): string {
  if (!cell) return '';
  return `${MARKS[cell.mark].symbol}${cell.figure ?? ''}`;
}

/** The marks a matrix uses, in the legend's order, each `✓ held every check (…)`. */
export function legendLines(matrix: Matrix): string[] {
  const used = new Set(
    Object.values(matrix.cells).flatMap((row) => Object.values(row).map((cell) => cell.mark)),
  );
  return (Object.keys(MARKS) as CellMark[])
    .filter((mark) => used.has(mark))
    .map((mark) => `${MARKS[mark].symbol} ${MARKS[mark].means}`);
}

/** How many cells show each mark: `✓ 255 · ◆ 28 · △ 13 · ○ 24 · · 300`. */
export function markCounts(matrix: Matrix): string {
  const counts = new Map<CellMark, number>();
  for (const row of Object.values(matrix.cells))
    for (const cell of Object.values(row)) counts.set(cell.mark, (counts.get(cell.mark) ?? 0) + 1);
  return (Object.keys(MARKS) as CellMark[])
    .filter((mark) => counts.has(mark))
    .map((mark) => `${MARKS[mark].symbol} ${counts.get(mark)} ${mark}`)
    .join(' · ');
}

/** A design's cells that show more than a hold, one line each: `◆ contention: oversold 110`. */
export function findingLines(matrix: Matrix, design: string): string[] {
  const shown: CellMark[] = ['broke', 'broken', 'boundary', 'caught'];
  return matrix.scenarios.flatMap((scenario) => {
    const cell = matrix.cells[design]?.[scenario];
    return cell && shown.includes(cell.mark)
      ? [`${MARKS[cell.mark].symbol} ${scenario}: ${cell.fact ?? ''}`]
      : [];
  });
}
