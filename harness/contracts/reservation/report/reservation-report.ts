/**
 * The reservation contract in the report: its fields of report.json (the cases, the boundary table, the
 * coverage, the isolation and version matrices), the sections of report.md that explain them, and the
 * tables the terminal prints — all from the same rows (result-tables.ts), so the two never disagree.
 */
import type { Strategy, StrategyRef } from '../../../../strategies/contract.ts';
import type { ContractReport, MarkdownBlock, TerminalBlock } from '../../../contract/contract.ts';
import { formatOutcomes, statusMark } from '../../../verdict/case-result.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { httpTable, scenarioTable, targetLines } from './black-box-report.ts';
import { boundaryRows } from './boundary.ts';
import { boundaryColumnsTable, RESERVATION_READING } from './boundary-columns.ts';
import { coverageRows } from './coverage.ts';
import { isolationRows } from './isolation-matrix.ts';
import type { ReservationReport } from './report-schema.ts';
import { RESERVATION_REPORT_SHAPE } from './report-schema.ts';
import {
  caseTable,
  coverageGapLines,
  coverageTable,
  isolationTable,
  notApplicableLine,
  PHASES_NOTE,
  phasesCell,
  versionTable,
} from './result-tables.ts';
import { versionRows } from './version-matrix.ts';

function boundaryLines(report: ReservationReport): MarkdownBlock[] {
  if (report.boundary.length === 0) return [];
  return [
    '## Boundary table',
    '',
    'One row per design, by the same rule for every design: how many measured cases **held** every check;',
    'where it **breaks** — each scenario where a case failed, a negative control was caught or a boundary was',
    'measured (lost acknowledgements with `synchronous_commit = off`), with the count that shows it and marked',
    'as the matrix marks it; a SOLD_OUT that left stock unsold (**false sold-out**); sessions seen **waiting**',
    'on its locks, then completing (the first case, and how many cases did); the scenarios it lacks an',
    'operation or pause point for (**not covered**).',
    '',
    boundaryColumnsTable(report.boundary, report.cases),
    '',
  ];
}

function caseLines(report: ReservationReport): MarkdownBlock[] {
  return [
    '## Cases',
    '',
    'A case passes when a safe design (`expect: hold`) keeps every invariant and returns the exact outcome',
    'counts of its scenario, or when a negative control (`expect: violate`) is caught breaking one.',
    '',
    PHASES_NOTE,
    'Duration is the wall time of the whole case; latency is per request (a clients or script scenario only).',
    '',
    caseTable(report.cases),
    '',
    notApplicableLine(report.cases) ?? '',
    '',
  ];
}

function coverageLines(report: ReservationReport): MarkdownBlock[] {
  return [
    '## Coverage',
    '',
    'Per strategy and scenario: the verdict, `n/a` where a control sits out a scenario that is not meant to',
    'catch it, `not covered` where the strategy lacks an optional operation or pause point the scenario needs',
    '(`run --require-coverage` fails on those).',
    '',
    coverageTable(report.coverage),
    '',
    ...coverageGapLines(report.coverage).map((line) => `- ${line}`),
    '',
  ];
}

/** A run against a service (`run --target`) only. */
function targetSectionLines(report: ReservationReport): MarkdownBlock[] {
  if (!report.target) return [];
  return [
    '## Target (run --target)',
    '',
    'A service driven from outside, through its HTTP API (docs/http-api.md): the same scenarios, clients and',
    'checks as a strategy, judged from its answers and its own API read back after each case.',
    '',
    ...targetLines(report).map((line) => `- ${line}`),
    '',
    scenarioTable(report),
    '',
    'HTTP exchanges per endpoint, over the run (every attempt; latency per exchange, HDR histogram):',
    '',
    httpTable(report.target.http),
    '',
  ];
}

/** A run with `--isolation` only. */
function isolationLines(report: ReservationReport): MarkdownBlock[] {
  if (report.isolation.length === 0) return [];
  return [
    '## Isolation matrix',
    '',
    'Every case run with each session at the level (`run --isolation`). A level the design does not claim is',
    'measured only: what broke there is its boundary, not a failure of the run.',
    '',
    isolationTable(report.isolation),
    '',
  ];
}

/** A run on several PostgreSQL majors (`run --postgres 15,18`) only. */
function versionLines(report: ReservationReport): MarkdownBlock[] {
  if (report.versions.length === 0) return [];
  return [
    '## Version matrix',
    '',
    'The suite on each server version, one after the other (case ids start `pg<major>/`). A design older',
    'servers lack a feature of is n/a there, with the reason. "blocked" lists, per interleaving, the steps',
    'seen waiting on another session: lock behaviour that differs between versions shows as different cells.',
    '',
    versionTable(report.versions),
    '',
  ];
}

/** The boundary table's columns that fit the terminal; what a design does not cover follows as lines. */
const TERMINAL_BOUNDARY = [
  'design',
  'held (✓)',
  'breaks (scenario: count)',
  'false sold-out',
  'waits (first case)',
];

function terminal(report: ReservationReport): TerminalBlock[] {
  if (report.boundary.length === 0) return [];
  return [
    'Boundary — reservations (per design: cases held, where it breaks, false sold-out, waits)',
    {
      table: boundaryColumnsTable(report.boundary, report.cases, TERMINAL_BOUNDARY),
      caps: [22, 10, 36, 24, 26],
    },
    ...coverageGapLines(report.coverage).map((line) => line.replace(/ — [^,]*/g, '')),
    '',
  ];
}

/** After every contract's designs: the cases n/a, a target, the isolation and version matrices. */
function terminalAfter(report: ReservationReport): TerminalBlock[] {
  const notApplicable = notApplicableLine(report.cases);
  return [
    ...(notApplicable ? [notApplicable, ''] : []),
    ...(report.target
      ? [
          ...targetLines(report),
          { table: scenarioTable(report), caps: [28, 13] },
          'HTTP exchanges per endpoint (every attempt; latency per exchange)',
          { table: httpTable(report.target.http) },
          '',
        ]
      : []),
    ...(report.isolation.length > 0
      ? ['Isolation matrix', { table: isolationTable(report.isolation) }, '']
      : []),
    ...(report.versions.length > 0 ? ['Version matrix', { table: versionTable(report.versions) }, ''] : []),
  ];
}

/** One case's line while the run goes on: its outcomes phase by phase, then its verdict. */
function caseLine(c: CaseResult): string {
  // The verdict line of a case that held starts with its outcomes summed over the phases; the line shows
  // them per phase already, so the sum is left out rather than read as one more phase.
  const summed = `held: ${formatOutcomes(c.outcomes)}; `;
  const verdict = c.boundary.startsWith(summed) ? `held: ${c.boundary.slice(summed.length)}` : c.boundary;
  return `${statusMark(c.status)} ${c.id} (${c.expect}) ${phasesCell(c)} — ${verdict}`;
}

export const RESERVATION_REPORT = {
  shape: RESERVATION_REPORT_SHAPE,
  fields: (cases: readonly CaseResult[], refs: readonly StrategyRef[]): ReservationReport => ({
    cases: [...cases] as ReservationReport['cases'],
    boundary: boundaryRows(
      cases,
      refs.map((r): Strategy => r.strategy),
    ),
    coverage: coverageRows(cases),
    isolation: isolationRows(cases),
    versions: versionRows(cases),
  }),
  casesOf: (report: ReservationReport) => report.cases,
  markdown: (report: ReservationReport): MarkdownBlock[] =>
    report.cases.length === 0 ? [] : [...boundaryLines(report), ...caseLines(report)],
  terminal: (report: ReservationReport): TerminalBlock[] =>
    report.cases.length === 0 ? [] : terminal(report),
  after: {
    markdown: (report: ReservationReport): MarkdownBlock[] =>
      report.cases.length === 0
        ? []
        : [
            ...coverageLines(report),
            ...targetSectionLines(report),
            ...isolationLines(report),
            ...versionLines(report),
          ],
    terminal: (report: ReservationReport): TerminalBlock[] =>
      report.cases.length === 0 ? [] : terminalAfter(report),
  },
  caseLine,
  matrix: {
    name: 'reservations',
    promise: 'limited stock reserved under contention: never oversold, every answer kept',
    reading: RESERVATION_READING,
  },
} satisfies ContractReport<StrategyRef, CaseResult, ReservationReport>;
