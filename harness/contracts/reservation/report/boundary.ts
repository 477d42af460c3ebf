/**
 * The boundary table: one row per strategy, one cell saying what holds and where it breaks, each with the
 * case that shows it — by the same rule for every design, built from the case results only:
 * - holds: how many measured cases kept every invariant, the clean cases' scenario notes, and the headline
 *   scenario's counts (contention, whatever case showed a boundary);
 * - breaks: every scenario where a case failed, a control was caught, an invariant was measured broken (a
 *   boundary the scenario reports instead of judging) or a SOLD_OUT left stock unsold — the case's own line
 *   and the first case that showed it;
 * - waits: sessions seen waiting on the design's locks, then completing (the price of serialising);
 * - not covered: scenarios the design lacks an operation or pause point for.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import { formatOutcomes, formatPhases, isMeasured } from '../../../verdict/case-result.ts';
import type { CaseResult, MeasuredCase } from '../verdict/case-result.ts';
import type { Invariants } from '../verdict/invariants.ts';
import { coverageRows } from './coverage.ts';

/** Something a scenario showed about a design, with the first case that showed it. */
export interface BoundaryFinding {
  /** The case's own line: `caught: oversold 110`, `false sold-out: …`, `broke: …`, `blocked, then completed: …`. */
  what: string;
  shownBy: string;
  /** How many cases showed it (repetitions, isolation levels; for waits, every case that blocked). */
  cases: number;
}

export interface BoundaryRow {
  strategy: string;
  expect: Strategy['expect'];
  guarantee: string;
  /** What held: cases that kept every invariant, the clean cases' notes, the headline case's counts. */
  holds: string;
  /** Where it broke or was caught, one entry per scenario (and level) that showed it; empty when none. */
  breaks: BoundaryFinding[];
  /** Sessions seen waiting on its locks, then completing: the first case, and how many cases blocked. */
  waits?: BoundaryFinding;
  notCovered: string[];
  /** The one cell the tables show. */
  boundary: string;
  /** The headline case's counts: the contention scenario when it ran, else the first measured case. */
  counts: string;
  /** The cases that show the breaks, else the waits, else the headline case. */
  shownBy: string;
}

/** Safety counts a case measured broken, each with its count: in a passing case, only a scenario that measures them does. */
export function unsafeEntries(inv: Invariants): [string, number][] {
  const counts = [
    'oversold',
    'duplicateActive',
    'duplicateKey',
    'lostAcknowledged',
    'unacknowledgedActive',
  ] as const;
  return [
    ...counts.flatMap((k): [string, number][] => (inv[k] ? [[k, inv[k] ?? 0]] : [])),
    ...(inv.drift !== 0 ? [['drift', inv.drift] as [string, number]] : []),
    ...((inv.auditMismatch ?? 0) > 0 ? [['auditMismatch', inv.auditMismatch ?? 0] as [string, number]] : []),
    ...(inv.reconciled === false ? [['books do not reconcile', 1] as [string, number]] : []),
    ...(inv.ledgerReplayDrift ? [['ledgerReplayDrift', inv.ledgerReplayDrift] as [string, number]] : []),
  ];
}

function unsafeCounts(inv: Invariants): string[] {
  return unsafeEntries(inv).map(([k, v]) => (k === 'books do not reconcile' ? k : `${k} ${v}`));
}

/** `contention/hot-row: HELD 40, SOLD_OUT 110; active 40/40, drift 0`, phase by phase when there are several. */
function countsOf(c: MeasuredCase): string {
  const [only, ...more] = c.phases;
  const outcomes = only && more.length === 0 ? formatOutcomes(only.outcomes) : formatPhases(c.phases);
  return `${c.id}: ${outcomes}; active ${c.invariants.active}/${c.invariants.total}, drift ${c.invariants.drift}`;
}

/**
 * The case's verdict without the notes the runner appends to its line (steps blocked, observations), which
 * the case table and report.json already show: rebuilt from the case's own steps and observations and cut
 * out where they match exactly, else the line as it is.
 */
function verdictOf(c: CaseResult): string {
  if (!isMeasured(c)) return c.boundary;
  const blocked = (c.steps ?? []).filter((s) => s.blocked).map((s) => s.step);
  const entries = Object.entries(c.observations ?? {});
  const notes = [
    ...(c.steps
      ? [blocked.length > 0 ? ` (blocked, then completed: ${blocked.join(', ')})` : ' (no step blocked)']
      : []),
    ...(entries.length > 6 ? [` (${entries.length} observations; see the JSON)`] : []),
    ...(entries.length > 0 && entries.length <= 6
      ? [` (${entries.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')})`]
      : []),
  ].join('');
  const at = notes ? c.boundary.lastIndexOf(notes) : -1;
  return at > 0 ? `${c.boundary.slice(0, at)}${c.boundary.slice(at + notes.length)}` : c.boundary;
}

/** Where a case shows its design breaking (or a control caught), or undefined when it kept everything. */
function findingOf(c: CaseResult): string | undefined {
  if (c.status === 'n/a') return undefined;
  if (c.status === 'broken') return `could not run: ${c.boundary}`;
  if (c.status === 'fail' || c.expect === 'violate') return verdictOf(c);
  const unsafe = unsafeCounts(c.invariants);
  if (unsafe.length > 0) return c.boundaryNote ?? `measured: ${unsafe.join(', ')}`;
  if (c.invariants.falseSoldOut > 0) return verdictOf(c);
  return undefined;
}

/** Between the parts of the cell (holds, breaks, waits, not covered). */
const CELL_PARTS = ' · ';

/** Repetitions of one case (`#2`, `#3`) count as one scenario; isolation levels stay apart. */
const groupOf = (c: CaseResult) => c.id.replace(/#\d+$/, '');

function grouped(
  cases: readonly CaseResult[],
  what: (c: CaseResult) => string | undefined,
): BoundaryFinding[] {
  const groups = new Map<string, BoundaryFinding>();
  for (const c of cases) {
    const text = what(c);
    if (text === undefined) continue;
    const seen = groups.get(groupOf(c));
    if (seen) seen.cases += 1;
    else groups.set(groupOf(c), { what: text, shownBy: c.id, cases: 1 });
  }
  return [...groups.values()];
}

const cited = (f: BoundaryFinding) => `${f.what} (${f.shownBy}${f.cases > 1 ? `; ${f.cases} cases` : ''})`;

function waitsOf(measured: readonly MeasuredCase[]): BoundaryFinding | undefined {
  const blocked = measured.filter((c) => c.steps?.some((s) => s.blocked));
  const first = blocked[0];
  if (!first) return undefined;
  const steps = (first.steps ?? []).filter((s) => s.blocked).map((s) => s.step);
  return { what: `blocked, then completed: ${steps.join(', ')}`, shownBy: first.id, cases: blocked.length };
}

export function boundaryRows(cases: readonly CaseResult[], strategies: readonly Strategy[]): BoundaryRow[] {
  const gaps = new Map(coverageRows(cases).map((r) => [r.strategy, r.gaps]));
  return strategies.map((strategy) => boundaryRow(cases, strategy, gaps.get(strategy.id) ?? []));
}

function boundaryRow(cases: readonly CaseResult[], strategy: Strategy, notCovered: string[]): BoundaryRow {
  const own = cases.filter((c) => c.strategy === strategy.id);
  const measured = own.filter(isMeasured);
  const headline = measured.find((c) => c.headline) ?? measured[0];
  const breaks = grouped(own, findingOf);
  const waits = waitsOf(measured);
  const kept = measured.filter((c) => c.status === 'pass' && unsafeCounts(c.invariants).length === 0);
  const notes = grouped(kept, (c) =>
    isMeasured(c) && findingOf(c) === undefined ? c.boundaryNote : undefined,
  );
  const holds =
    strategy.expect === 'violate'
      ? 'nothing claimed (a negative control)'
      : headline
        ? [
            `every invariant in ${kept.length} of ${measured.length} cases`,
            ...notes.map(cited),
            countsOf(headline),
          ].join('; ')
        : 'no case measured';
  const found = breaks.map(cited).join('; ');
  const cell = [
    ...(strategy.expect === 'violate'
      ? [found || (measured.length > 0 ? 'NOT caught' : 'no case measured')]
      : [`holds: ${holds}`, `breaks: ${found || 'none observed'}`]),
    ...(waits ? [`waits: ${cited(waits)}`] : []),
    ...(notCovered.length > 0 ? [`not covered: ${notCovered.join(', ')}`] : []),
  ];
  return {
    strategy: strategy.id,
    expect: strategy.expect,
    guarantee: strategy.guarantee,
    holds,
    breaks,
    ...(waits ? { waits } : {}),
    notCovered,
    boundary: cell.join(CELL_PARTS),
    counts: headline ? countsOf(headline) : '-',
    shownBy: breaks.map((f) => f.shownBy).join(', ') || waits?.shownBy || headline?.id || '-',
  };
}
