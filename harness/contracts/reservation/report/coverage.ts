/**
 * Coverage: which scenario each strategy was measured in, and why it was not in the others. A gap (a
 * missing optional operation or pause point) is visible in every report and, with `--require-coverage`,
 * fails the run; a control sitting out the scenarios that do not catch it is not a gap.
 */
import { isCoverageGap } from '../../../verdict/case-result.ts';
import type { CaseResult } from '../verdict/case-result.ts';

export type CoverageCell = CaseResult['status'] | 'not covered';

export interface CoverageRow {
  strategy: string;
  expect: CaseResult['expect'];
  /** Per scenario id: the verdict (the worst over repetitions), `n/a` by choice, or `not covered`. */
  cells: Record<string, CoverageCell>;
  /** One line per scenario not covered for lack of an operation or pause point: `expiry — no expire`. */
  gaps: string[];
}

function cellOf(c: CaseResult): CoverageCell {
  if (isCoverageGap(c)) return 'not covered';
  return c.status;
}

const RANK: Record<CoverageCell, number> = { broken: 4, fail: 3, 'not covered': 2, pass: 1, 'n/a': 0 };

export function coverageRows(cases: readonly CaseResult[]): CoverageRow[] {
  const rows = new Map<string, CoverageRow>();
  for (const c of cases) {
    const row = rows.get(c.strategy) ?? { strategy: c.strategy, expect: c.expect, cells: {}, gaps: [] };
    rows.set(c.strategy, row);
    const cell = cellOf(c);
    const before = row.cells[c.scenario];
    if (!before || RANK[cell] > RANK[before]) row.cells[c.scenario] = cell;
    const gap =
      c.status === 'n/a' && isCoverageGap(c) ? `${c.scenario} — ${c.coverage.missing.join('; ')}` : undefined;
    if (gap && !row.gaps.includes(gap)) row.gaps.push(gap);
  }
  return [...rows.values()];
}
