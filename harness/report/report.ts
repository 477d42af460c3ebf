/**
 * The public report: the JSON document (its schema: report-schema.ts, docs/report.schema.json), its
 * Markdown rendering for reviewers, and the files written on every run (`reports/<stamp>/` plus a
 * refreshed `reports/latest/`).
 */

import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { caseMark, legendLines, markCounts } from '../contract/case-matrix.ts';
import type { MarkdownBlock, TableData } from '../contract/contract.ts';
import { CONTRACTS } from '../contracts/index.ts';
import { commitsLine } from '../database/durability.ts';
import type { AnyContract, SuiteResult } from '../suite/suite.ts';
import { type CaseResultBase, failsTheRun } from '../verdict/case-result.ts';
import { caseDetailLines, caseHeading } from './case-details.ts';
import { configurationLines } from './configuration-lines.ts';
import type { Configuration } from './configuration-schema.ts';
import { type ContractMatrix, contractMatrices } from './contract-matrices.ts';
import { slugger } from './heading-slug.ts';
import { writeHtmlReport } from './html-report.ts';
import type { HtmlCases } from './html-sections.ts';
import { markdownTable } from './markdown-table.ts';
import { matrixTable } from './matrix-tables.ts';
import { checkedReport, type Report } from './report-schema.ts';
import { sourceLines } from './source-lines.ts';

/** The heading of report.md's last section but the sources, each case's. */
export const CASE_DETAILS = 'Case details';

/** The document, inferred from its zod schema (report-schema.ts). */
export type { Report };

/** Every contract's fields of the run (a contract the run did not drive: its fields with no case). */
function contractFields(result: SuiteResult): Record<string, unknown> {
  return Object.assign(
    {},
    ...CONTRACTS.map((contract) => {
      const ran = result.results.find((r) => r.contract.id === contract.id);
      // biome-ignore lint/suspicious/noExplicitAny: each contract reads its own cases and designs
      return contract.report.fields((ran?.cases ?? []) as any[], (ran?.designs ?? []) as any[]);
    }),
  );
}

export function buildReport(result: SuiteResult, configuration?: Configuration): Report {
  return {
    ok: result.ok,
    generatedAt: new Date().toISOString(),
    environment: result.environment,
    ...(configuration ? { configuration } : {}),
    sources: result.sources,
    uncovered: result.uncovered,
    ...contractFields(result),
    ...(result.unhandledErrors > 0 ? { unhandledErrors: result.unhandledErrors } : {}),
  } as Report;
}

/** Every contract's cases in a report, in the contracts' order. */
export function reportedCases(report: Report): CaseResultBase[] {
  return CONTRACTS.flatMap((contract) => [...contract.report.casesOf(report)]);
}

function markdown(table: TableData): string {
  return markdownTable([table.headers, ...table.rows]);
}

/** A contract's report.md blocks as Markdown lines. */
export function markdownLines(blocks: readonly MarkdownBlock[]): string[] {
  return blocks.map((block) => (typeof block === 'string' ? block : markdown(block)));
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

function uncoveredLines(report: Report): string[] {
  if (report.uncovered.length === 0) return [];
  return ['## Not covered (--require-coverage)', '', ...report.uncovered.map((u) => `- \`${u}\``), ''];
}

function failureLines(failed: readonly CaseResultBase[]): string[] {
  if (failed.length === 0) return [];
  return ['## Failures', '', ...failed.map((c) => `- \`${c.id}\`: ${c.boundary}`), ''];
}

/** Everything before the case details. */
function leadLines(
  report: Report,
  sections: readonly ContractMatrix[],
  links: ReadonlyMap<string, string>,
): string[] {
  const failed = reportedCases(report).filter(failsTheRun);
  return [
    ...headLines(report, failed.length),
    ...matrixLines(sections, links),
    ...CONTRACTS.flatMap((contract) => markdownLines(contract.report.markdown(report))),
    ...CONTRACTS.flatMap((contract: AnyContract) =>
      markdownLines(contract.report.after?.markdown(report) ?? []),
    ),
    ...uncoveredLines(report),
    ...failureLines(failed),
    ...configurationLines(report.configuration),
  ];
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
