/**
 * The isolation matrix of `run --isolation`: per design and level, whether every invariant and
 * expectation held, which checks broke, which SQLSTATEs the requests met and how often the design retried,
 * with the case that shows the cell. Built from the case results only.
 */
import { isMeasured } from '../../../verdict/case-result.ts';
import type { CaseResult } from '../verdict/case-result.ts';

export interface IsolationRow {
  strategy: string;
  level: string;
  /** `claimed`: the design's guarantee is claimed at this level (judged); `measured`: reported only. */
  claim: 'claimed' | 'measured';
  held: boolean;
  /** Checks that fired in some case, in the order first seen. */
  broke: string[];
  sqlstates: Record<string, number>;
  retries: number;
  cases: number;
  /** The first case that broke, else every case measured. */
  shownBy: string;
}

export function isolationRows(cases: readonly CaseResult[]): IsolationRow[] {
  const rows = new Map<string, IsolationRow & { ids: string[] }>();
  for (const c of cases) {
    if (!c.isolation || c.status === 'n/a') continue;
    const key = `${c.strategy}\u0000${c.isolation}`;
    const row = rows.get(key) ?? {
      strategy: c.strategy,
      level: c.isolation,
      claim: c.expect === 'measure' ? 'measured' : 'claimed',
      held: true,
      broke: [],
      sqlstates: {},
      retries: 0,
      cases: 0,
      shownBy: '',
      ids: [],
    };
    rows.set(key, row);
    row.cases += 1;
    row.ids.push(c.id);
    const failed = c.status === 'fail' || c.status === 'broken';
    if (failed && row.held) row.shownBy = c.id;
    row.held &&= !failed;
    // A case that could not run to its end (an operation failed mid-scenario) broke as a whole.
    const fired = isMeasured(c) ? c.fired : ['broken'];
    if (failed) for (const check of fired) if (!row.broke.includes(check)) row.broke.push(check);
    if (!isMeasured(c)) continue;
    for (const [state, n] of Object.entries(c.sqlstates ?? {}))
      row.sqlstates[state] = (row.sqlstates[state] ?? 0) + n;
    row.retries += Object.values(c.retries ?? {}).reduce((a, b) => a + b, 0);
  }
  return [...rows.values()].map(({ ids, ...row }) => ({ ...row, shownBy: row.shownBy || ids.join(', ') }));
}
