/**
 * The public report: the JSON document (its schema: report-schema.ts, docs/report.schema.json), its
 * Markdown rendering for reviewers, and the files written on every run (`reports/<stamp>/` plus a
 * refreshed `reports/latest/`).
 */

import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Strategy } from '../../strategies/contract.ts';
import type { PaymentDesign } from '../../strategies/payment/contract.ts';
import { commitsLine } from '../database/durability.ts';
import type { SuiteResult } from '../scenario/suite.ts';
import { failsTheRun } from '../verdict/case-result.ts';
import { coverageRows } from '../verdict/coverage.ts';
import { paymentFailsTheRun } from '../verdict/payment-case-result.ts';
import { httpTable, scenarioTable, targetLines } from './black-box-report.ts';
import { boundaryRows } from './boundary.ts';
import { configurationLines } from './configuration-lines.ts';
import type { Configuration } from './configuration-schema.ts';
import { writeHtmlReport } from './html-report.ts';
import { isolationRows } from './isolation-matrix.ts';
import { markdownTable } from './markdown-table.ts';
import { paymentBoundaryRows, paymentBoundaryTable, paymentCaseTable } from './payment-report.ts';
import { checkedReport, type Report } from './report-schema.ts';
import {
  BOUNDARY_HEADER,
  boundaryTable,
  caseTable,
  coverageGapLines,
  coverageTable,
  isolationTable,
  notApplicableLine,
  PHASES_NOTE,
  type TableData,
  versionTable,
} from './result-tables.ts';
import { sourceLines } from './source-lines.ts';
import { versionRows } from './version-matrix.ts';

/** The document, inferred from its zod schema (report-schema.ts). */
export type { Report };

export function buildReport(
  result: SuiteResult,
  strategies: readonly Strategy[],
  paymentDesigns: readonly PaymentDesign[] = [],
  configuration?: Configuration,
): Report {
  return {
    ok: result.ok,
    generatedAt: new Date().toISOString(),
    environment: result.environment,
    ...(configuration ? { configuration } : {}),
    sources: result.sources,
    cases: result.cases,
    boundary: boundaryRows(result.cases, strategies),
    coverage: coverageRows(result.cases),
    isolation: isolationRows(result.cases),
    versions: versionRows(result.cases),
    uncovered: result.uncovered,
    payments: result.payments,
    paymentBoundary: paymentBoundaryRows(result.payments, paymentDesigns),
  };
}

function markdown(table: TableData): string {
  return markdownTable([table.headers, ...table.rows]);
}

/** The title, the verdict and the environment. */
function headLines(report: Report, failed: number): string[] {
  const env = report.environment;
  return [
    '# reservebench report',
    '',
    `Generated ${report.generatedAt} — **${report.ok ? 'ok: every case met its expectation' : `NOT ok: ${failed} case(s) failed`}**`,
    '',
    '## Environment',
    '',
    markdown({
      headers: ['node', 'client', 'postgres', 'database', 'cpus', 'commit', ...Object.keys(env.settings)],
      rows: [
        [
          env.node,
          env.client ? `reservebench ${env.client.reservebench}, pg ${env.client.pg}` : 'not recorded',
          env.postgres,
          env.database,
          String(env.cpus),
          env.commit,
          ...Object.values(env.settings),
        ],
      ],
    }),
    '',
    ...(env.database === 'target' ? [] : [`${commitsLine(env.settings)}.`, '']),
  ];
}

function boundaryLines(report: Report): string[] {
  return [
    '## Boundary table',
    '',
    `One row per strategy. "${BOUNDARY_HEADER}" says, by the same rule for every design: **holds** — how many`,
    'measured cases kept every invariant, with the headline case (contention when it ran) and its counts;',
    '**breaks** — each scenario where a case failed, a negative control was caught, a boundary was measured',
    '(lost acknowledgements with `synchronous_commit = off`) or a SOLD_OUT left stock unsold, with the first',
    'case that showed it; **waits** — sessions seen waiting on its locks, then completing; **not covered** —',
    'scenarios it lacks an operation or pause point for.',
    '',
    markdown(boundaryTable(report.boundary)),
    '',
  ];
}

function caseLines(report: Report): string[] {
  return [
    '## Cases',
    '',
    'A case passes when a safe design (`expect: hold`) keeps every invariant and returns the exact outcome',
    'counts of its scenario, or when a negative control (`expect: violate`) is caught breaking one.',
    '',
    PHASES_NOTE,
    'Duration is the wall time of the whole case; latency is per request (a clients or script scenario only).',
    '',
    markdown(caseTable(report.cases)),
    '',
    notApplicableLine(report.cases) ?? '',
    '',
  ];
}

function coverageLines(report: Report): string[] {
  return [
    '## Coverage',
    '',
    'Per strategy and scenario: the verdict, `n/a` where a control sits out a scenario that is not meant to',
    'catch it, `not covered` where the strategy lacks an optional operation or pause point the scenario needs',
    '(`run --require-coverage` fails on those).',
    '',
    markdown(coverageTable(report.coverage)),
    '',
    ...coverageGapLines(report.coverage).map((line) => `- ${line}`),
    '',
  ];
}

/** A run against a service (`run --target`) only. */
function targetSectionLines(report: Report): string[] {
  if (!report.target) return [];
  return [
    '## Target (run --target)',
    '',
    'A service driven from outside, through its HTTP API (docs/http-api.md): the same scenarios, clients and',
    'checks as a strategy, judged from its answers and its own API read back after each case.',
    '',
    ...targetLines(report).map((line) => `- ${line}`),
    '',
    markdown(scenarioTable(report)),
    '',
    'HTTP exchanges per endpoint, over the run (every attempt; latency per exchange, HDR histogram):',
    '',
    markdown(httpTable(report.target.http)),
    '',
  ];
}

/** A run with `--isolation` only. */
function isolationLines(report: Report): string[] {
  if (report.isolation.length === 0) return [];
  return [
    '## Isolation matrix',
    '',
    'Every case run with each session at the level (`run --isolation`). A level the design does not claim is',
    'measured only: what broke there is its boundary, not a failure of the run.',
    '',
    markdown(isolationTable(report.isolation)),
    '',
  ];
}

/** A run on several PostgreSQL majors (`run --postgres 15,18`) only. */
function versionLines(report: Report): string[] {
  if (report.versions.length === 0) return [];
  return [
    '## Version matrix',
    '',
    'The suite on each server version, one after the other (case ids start `pg<major>/`). A design older',
    'servers lack a feature of is n/a there, with the reason. "blocked" lists, per interleaving, the steps',
    'seen waiting on another session: lock behaviour that differs between versions shows as different cells.',
    '',
    markdown(versionTable(report.versions)),
    '',
  ];
}

function uncoveredLines(report: Report): string[] {
  if (report.uncovered.length === 0) return [];
  return ['## Not covered (--require-coverage)', '', ...report.uncovered.map((u) => `- \`${u}\``), ''];
}

function paymentLines(report: Report): string[] {
  if (report.payments.length === 0) return [];
  return [
    '## Payment contract',
    '',
    "Seed 002's payment idempotency (docs/contract.md#payments): each payment scenario against each payment design; payment / outbox are the rows the harness read back over the keys the case sent.",
    '',
    markdown(paymentBoundaryTable(report.paymentBoundary)),
    '',
    markdown(paymentCaseTable(report.payments)),
    '',
  ];
}

function failureLines(failed: Report['cases']): string[] {
  if (failed.length === 0) return [];
  return ['## Failures', '', ...failed.map((c) => `- \`${c.id}\`: ${c.boundary}`), ''];
}

export function renderMarkdown(report: Report): string {
  const failed = report.cases.filter(failsTheRun);
  const paymentsFailed = report.payments.filter(paymentFailsTheRun).length;
  return [
    ...headLines(report, failed.length + paymentsFailed),
    ...boundaryLines(report),
    ...caseLines(report),
    ...paymentLines(report),
    ...coverageLines(report),
    ...targetSectionLines(report),
    ...isolationLines(report),
    ...versionLines(report),
    ...uncoveredLines(report),
    ...failureLines(failed),
    ...configurationLines(report.configuration),
    ...sourceLines(report.sources),
  ].join('\n');
}

export function reportFolder(root: string, generatedAt: string, kind?: string): string {
  return join(root, `${generatedAt.replace(/[:.]/g, '-')}${kind ? `-${kind}` : ''}`);
}

/** Replaces `<root>/<name>/` with a copy of the stamped folder. */
export function refreshLatest(root: string, folder: string, name: string): void {
  const latest = join(root, name);
  rmSync(latest, { recursive: true, force: true });
  cpSync(folder, latest, { recursive: true });
}

/** Writes report.json, report.md and report.html into `folder`. */
export function writeRunFiles(folder: string, report: Report): void {
  // Checked against the schema as written: a report that does not match is an error, never a file.
  writeFileSync(join(folder, 'report.json'), `${JSON.stringify(checkedReport(report), null, 2)}\n`);
  writeFileSync(join(folder, 'report.md'), renderMarkdown(report));
  writeHtmlReport(folder);
}

/** Writes `<root>/<stamp>/` and replaces `<root>/latest/` with a copy; returns the stamped folder. */
export function writeReportFiles(root: string, report: Report): string {
  const folder = reportFolder(root, report.generatedAt);
  mkdirSync(folder, { recursive: true });
  writeRunFiles(folder, report);
  refreshLatest(root, folder, 'latest');
  return folder;
}
