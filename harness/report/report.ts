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
import { boundaryColumnsTable } from './boundary-columns.ts';
import { caseDetailLines, caseHeading } from './case-details.ts';
import { caseMark, caseMatrix, legendLines, markCounts } from './case-matrix.ts';
import { configurationLines } from './configuration-lines.ts';
import type { Configuration } from './configuration-schema.ts';
import { type ContractMatrix, contractMatrices } from './contract-matrices.ts';
import { slugger } from './heading-slug.ts';
import { writeHtmlReport } from './html-report.ts';
import type { HtmlCases } from './html-sections.ts';
import { isolationRows } from './isolation-matrix.ts';
import { markdownTable } from './markdown-table.ts';
import { designColumnsTable, matrixTable } from './matrix-tables.ts';
import { PAYMENT_READING, paymentBoundaryRows, paymentCaseTable } from './payment-report.ts';
import { checkedReport, type Report } from './report-schema.ts';
import {
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

/** The heading of report.md's last section but the sources, each case's. */
export const CASE_DETAILS = 'Case details';

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
    ...(result.unhandledErrors > 0 ? { unhandledErrors: result.unhandledErrors } : {}),
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

/** One grid per contract: designs down, scenarios across, one symbol and one number a cell, each a link. */
function matrixLines(sections: readonly ContractMatrix[], links: ReadonlyMap<string, string>): string[] {
  return sections.flatMap(({ contract, promise, matrix }) => [
    `## Matrix — ${contract}`,
    '',
    `${promise[0]?.toUpperCase()}${promise.slice(1)}: ${matrix.designs.length} designs × ${matrix.scenarios.length} scenarios; ${markCounts(matrix)}.`,
    '',
    ...legendLines(matrix).map((line) => `- ${line}`),
    '',
    markdown(matrixTable(matrix, links)),
    '',
  ]);
}

/** Every case under a heading of its own, which the matrix links to. */
function caseDetailSection(report: Report, sections: readonly ContractMatrix[]): string[] {
  return [
    `## ${CASE_DETAILS}`,
    '',
    'Every case, in the order of the report: its mark in the matrix, what it counted, the checks that fired, the',
    "history's witness when it found one, what reproduces it and the command that runs it alone again.",
    '',
    ...sections.flatMap((s) => caseDetailLines(s.cases, s.reading, report.sources ?? [])),
  ];
}

/** Each case's anchor: its heading's, after every heading before the case details (as GitHub names them). */
function caseAnchors(lead: string, sections: readonly ContractMatrix[]): Map<string, string> {
  const slug = slugger();
  for (const line of lead.split('\n')) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) slug((heading[1] ?? '').replace(/`/g, ''));
  }
  slug(CASE_DETAILS);
  return new Map(
    sections.flatMap(({ cases, reading }) =>
      cases.map((c) => [c.id, slug(caseHeading(c.id, caseMark(c, reading)).replace(/`/g, ''))] as const),
    ),
  );
}

function boundaryLines(report: Report): string[] {
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
    markdown(boundaryColumnsTable(report.boundary, report.cases)),
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
    markdown(paymentDesignTable(report)),
    '',
    markdown(paymentCaseTable(report.payments)),
    '',
  ];
}

/** The payment designs in columns, from the payment matrix. */
function paymentDesignTable(report: Report): TableData {
  const payments = caseMatrix(report.payments, PAYMENT_READING);
  return designColumnsTable(report.paymentBoundary, payments);
}

function failureLines(failed: Report['cases']): string[] {
  if (failed.length === 0) return [];
  return ['## Failures', '', ...failed.map((c) => `- \`${c.id}\`: ${c.boundary}`), ''];
}

export function renderMarkdown(report: Report): string {
  return renderRun(report).markdown;
}

/** report.md, and each case by its heading's anchor, for report.html's filters. */
function renderRun(report: Report): { markdown: string; cases: HtmlCases } {
  const sections = contractMatrices(report);
  const lead = (links: ReadonlyMap<string, string>) => leadLines(report, sections, links).join('\n');
  const anchors = caseAnchors(lead(new Map()), sections);
  const cases: HtmlCases = new Map(
    sections.flatMap(({ cases, reading }) =>
      cases.map((c) => [
        anchors.get(c.id) ?? '',
        { design: c.strategy, scenario: c.scenario, status: c.status, mark: caseMark(c, reading) },
      ]),
    ),
  );
  const markdown = [
    lead(anchors),
    ...caseDetailSection(report, sections),
    ...sourceLines(report.sources),
  ].join('\n');
  return { markdown, cases };
}

/** Everything before the case details. */
function leadLines(
  report: Report,
  sections: readonly ContractMatrix[],
  links: ReadonlyMap<string, string>,
): string[] {
  const failed = report.cases.filter(failsTheRun);
  const paymentsFailed = report.payments.filter(paymentFailsTheRun).length;
  return [
    ...headLines(report, failed.length + paymentsFailed),
    ...matrixLines(sections, links),
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
  ];
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
  const { markdown, cases } = renderRun(report);
  writeFileSync(join(folder, 'report.md'), markdown);
  writeHtmlReport(folder, { cases, detailsHeading: CASE_DETAILS });
}

/** Writes `<root>/<stamp>/` and replaces `<root>/latest/` with a copy; returns the stamped folder. */
export function writeReportFiles(root: string, report: Report): string {
  const folder = reportFolder(root, report.generatedAt);
  mkdirSync(folder, { recursive: true });
  writeRunFiles(folder, report);
  refreshLatest(root, folder, 'latest');
  return folder;
}
