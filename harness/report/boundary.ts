/**
 * The boundary table: one row per strategy — how it stays correct, this run's counts and the boundary
 * observed, with the case that showed it. Built from the case results only.
 */
import type { Strategy } from '../../strategies/contract.ts';
import { type CaseResult, formatOutcomes, isMeasured, type MeasuredCase } from '../verdict/case-result.ts';
import { coverageRows } from '../verdict/coverage.ts';

export interface BoundaryRow {
  strategy: string;
  expect: Strategy['expect'];
  guarantee: string;
  counts: string;
  boundary: string;
  shownBy: string;
}

function countsOf(c: MeasuredCase): string {
  return `${c.scenario}: ${formatOutcomes(c.outcomes)}; active ${c.invariants.active}/${c.invariants.total}, drift ${c.invariants.drift}`;
}

/**
 * The case that says the most about a strategy: a failure, then a caught violation, then a false
 * sold-out, then an interleaving where it made a session wait.
 */
function telling(cases: readonly MeasuredCase[]): MeasuredCase | undefined {
  return (
    cases.find((c) => c.status === 'fail') ??
    cases.find((c) => c.expect === 'violate' && c.status === 'pass') ??
    cases.find((c) => c.invariants.falseSoldOut > 0) ??
    cases.find((c) => c.steps?.some((s) => s.blocked))
  );
}

/** The clauses scenarios add to a strategy's row (what a crash cost, …), each with the case that showed it. */
function scenarioNotes(cases: readonly MeasuredCase[]): string {
  return cases
    .filter((c) => c.boundaryNote)
    .map((c) => `; ${c.boundaryNote} (${c.id})`)
    .join('');
}

export function boundaryRows(cases: readonly CaseResult[], strategies: readonly Strategy[]): BoundaryRow[] {
  const gaps = new Map(coverageRows(cases).map((r) => [r.strategy, r.gaps]));
  return strategies.map((strategy) => {
    const row = boundaryRow(cases, strategy);
    const missing = gaps.get(strategy.id) ?? [];
    return missing.length > 0
      ? { ...row, boundary: `${row.boundary}; not covered: ${missing.join(', ')}` }
      : row;
  });
}

function boundaryRow(cases: readonly CaseResult[], strategy: Strategy): BoundaryRow {
  const own = cases.filter((c) => c.strategy === strategy.id);
  const measured = own.filter(isMeasured);
  const broken = own.find((c) => c.status === 'broken');
  const shown = telling(measured);
  const headline = measured.find((c) => c.headline) ?? measured[0];
  const base = { strategy: strategy.id, expect: strategy.expect, guarantee: strategy.guarantee };
  if (broken) return { ...base, counts: '-', boundary: broken.boundary, shownBy: broken.id };
  if (shown)
    return {
      ...base,
      counts: countsOf(shown),
      boundary: `${shown.boundary}${scenarioNotes(measured)}`,
      shownBy: shown.id,
    };
  return {
    ...base,
    counts: headline ? countsOf(headline) : '-',
    boundary: `${measured.length > 0 ? 'none observed' : 'no case measured'}${scenarioNotes(measured)}`,
    shownBy: measured.map((c) => c.id).join(', ') || '-',
  };
}
