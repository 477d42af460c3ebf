/**
 * The public report: the JSON document (its schema: report-schema.ts, docs/report.schema.json), its
 * Markdown rendering for reviewers, and the files written on every run (`reports/<stamp>/` plus a
 * refreshed `reports/latest/`).
 */

import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MarkdownBlock, TableData } from '../contract/contract.ts';
import { CONTRACTS } from '../contracts/index.ts';
import { commitsLine } from '../database/durability.ts';
import type { SuiteResult } from '../suite/suite.ts';
import { type CaseResultBase, failsTheRun } from '../verdict/case-result.ts';
import { configurationLines } from './configuration-lines.ts';
import type { Configuration } from './configuration-schema.ts';
import { writeHtmlReport } from './html-report.ts';
import { markdownTable } from './markdown-table.ts';
import { checkedReport, type Report } from './report-schema.ts';
import { sourceLines } from './source-lines.ts';

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

function uncoveredLines(report: Report): string[] {
  if (report.uncovered.length === 0) return [];
  return ['## Not covered (--require-coverage)', '', ...report.uncovered.map((u) => `- \`${u}\``), ''];
}

function failureLines(failed: readonly CaseResultBase[]): string[] {
  if (failed.length === 0) return [];
  return ['## Failures', '', ...failed.map((c) => `- \`${c.id}\`: ${c.boundary}`), ''];
}

export function renderMarkdown(report: Report): string {
  const failed = reportedCases(report).filter(failsTheRun);
  return [
    ...headLines(report, failed.length),
    ...CONTRACTS.flatMap((contract) => markdownLines(contract.report.markdown(report))),
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
