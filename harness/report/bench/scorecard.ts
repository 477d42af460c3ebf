/**
 * The scorecard: one row per design, joining what a run judged with what benches measured — the scenarios it
 * held of those it was measured in, where it broke or was caught (as the matrix marks it), throughput and p99
 * at each client count the benches ran (durable commits, no admission), and what durable commits cost it
 * (throughput durable ÷ not, where a bench ran both). The table a design review pastes in; built from saved
 * reports only (`reservebench report`), the same for every contract.
 */

import type { BenchEntry } from '../../bench/run-bench.ts';
import { durabilityCosts } from '../../bench/series-factors.ts';
import { findingLines } from '../../contract/case-matrix.ts';
import type { TableData } from '../../contract/contract.ts';
import { contractMatrices } from '../contract-matrices.ts';
import type { Report } from '../report-schema.ts';

export interface ScorecardRow {
  design: string;
  expect: string;
  /** `28 of 29`: scenarios held of those measured; `control` for a negative control; absent without a run. */
  held?: string;
  /** `◆ contention: oversold 110`, one a line. */
  breaks: string[];
  /** Per client count: median throughput (per s) and p99 (ms) of the durable series without admission. */
  speed: Record<number, { throughput: number; p99: number }>;
  /** `×0.62 at 150 clients`: throughput durable ÷ not, at the most clients where both ran. */
  durabilityCost?: string;
}

function runRows(run: Report | undefined): ScorecardRow[] {
  if (!run) return [];
  return contractMatrices(run).flatMap(({ matrix, cases }) =>
    matrix.designs.map((design) => {
      const cells = Object.values(matrix.cells[design] ?? {});
      const measured = cells.filter((c) => c.mark !== 'sits out' && c.mark !== 'not covered');
      const expect = cases.find((c) => c.strategy === design)?.expect ?? 'hold';
      const held = measured.filter((c) => c.mark === 'held').length;
      return {
        design,
        expect,
        held: expect === 'violate' ? 'control' : `${held} of ${measured.length}`,
        breaks: findingLines(matrix, design),
        speed: {},
      };
    }),
  );
}

export function scorecardRows(
  run: Report | undefined,
  benches: readonly (readonly BenchEntry[])[],
): ScorecardRow[] {
  const rows = runRows(run);
  const rowOf = (design: string) => {
    const found = rows.find((r) => r.design === design);
    if (found) return found;
    const added: ScorecardRow = { design, expect: '-', breaks: [], speed: {} };
    rows.push(added);
    return added;
  };
  for (const bench of benches) {
    for (const e of bench) {
      if (e.admission !== null || e.durability !== 'on' || e.status !== 'ok') continue;
      const row = rowOf(e.strategy);
      row.speed[e.clients] ??= { throughput: e.median.throughput, p99: e.median.p99 };
    }
    // At the most clients where both ran: where a commit's wait costs most.
    const costs = durabilityCosts(bench)
      .filter((c) => c.admission === null)
      .sort((a, b) => b.clients - a.clients);
    for (const cost of costs)
      rowOf(cost.strategy).durabilityCost ??= `×${cost.factor} at ${cost.clients} clients`;
  }
  return rows;
}

/**
 * The rows as a table: a throughput and a p99 column per client count any bench ran. `terminal`: no breaks
 * column (the run's matrix and boundary table are printed above it) and at most three client counts (the
 * fewest, the most and one between), so that it fits the terminal.
 */
export function scorecardTable(rows: readonly ScorecardRow[], terminal = false): TableData {
  const all = [...new Set(rows.flatMap((r) => Object.keys(r.speed).map(Number)))].sort((a, b) => a - b);
  const clients =
    terminal && all.length > 3
      ? [...new Set([all[0], all[Math.floor(all.length / 2)], all.at(-1)])].map(Number)
      : all;
  const judged = rows.some((r) => r.held !== undefined);
  const durability = rows.some((r) => r.durabilityCost !== undefined);
  return {
    headers: [
      'design',
      ...(judged ? ['held (✓)', ...(terminal ? [] : ['breaks (scenario: count)'])] : []),
      ...clients.flatMap((c) => [`${c} clients: per s`, `${c}: p99 ms`]),
      ...(durability ? ['durable ÷ async'] : []),
    ],
    rows: rows.map((r) => [
      r.design,
      ...(judged ? [r.held ?? '-'] : []),
      ...(judged && !terminal
        ? [r.breaks.join('\n') || (r.expect === 'violate' ? 'NOT caught' : 'none')]
        : []),
      ...clients.flatMap((c) => {
        const s = r.speed[c];
        return s ? [String(Math.round(s.throughput)), String(s.p99)] : ['-', '-'];
      }),
      ...(durability ? [r.durabilityCost ?? '-'] : []),
    ]),
  };
}
