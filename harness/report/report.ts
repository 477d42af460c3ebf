/**
 * The public report: the JSON document of DESIGN.md, its Markdown rendering for reviewers, and the files
 * written on every run (`reports/<stamp>/` plus a refreshed `reports/latest/`).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTable } from 'markdown-table';
import type { Strategy } from '../../strategies/contract.ts';
import type { Environment } from '../database/environment.ts';
import type { SuiteResult } from '../scenario/suite.ts';
import { type CaseResult, failsTheRun } from '../verdict/case-result.ts';
import { type CoverageRow, coverageRows } from '../verdict/coverage.ts';
import { type BoundaryRow, boundaryRows } from './boundary.ts';
import { type IsolationRow, isolationRows } from './isolation-matrix.ts';
import {
  boundaryTable,
  caseTable,
  coverageGapLines,
  coverageTable,
  isolationTable,
  notApplicableLine,
  type TableData,
} from './result-tables.ts';

export interface Report {
  ok: boolean;
  generatedAt: string;
  environment: Environment;
  cases: CaseResult[];
  boundary: BoundaryRow[];
  coverage: CoverageRow[];
  /** Design × isolation level, when the run was given `--isolation`. */
  isolation: IsolationRow[];
  /** Set by `--require-coverage`: the cases that were not covered and so failed the run. */
  uncovered: string[];
}

export function buildReport(result: SuiteResult, strategies: readonly Strategy[]): Report {
  return {
    ok: result.ok,
    generatedAt: new Date().toISOString(),
    environment: result.environment,
    cases: result.cases,
    boundary: boundaryRows(result.cases, strategies),
    coverage: coverageRows(result.cases),
    isolation: isolationRows(result.cases),
    uncovered: result.uncovered,
  };
}

function markdown(table: TableData): string {
  return markdownTable([table.headers, ...table.rows]);
}

export function renderMarkdown(report: Report): string {
  const env = report.environment;
  const failed = report.cases.filter(failsTheRun);
  const lines = [
    '# reservebench report',
    '',
    `Generated ${report.generatedAt} — **${report.ok ? 'ok: every case met its expectation' : `NOT ok: ${failed.length} case(s) failed`}**`,
    '',
    '## Environment',
    '',
    markdown({
      headers: ['node', 'postgres', 'database', 'cpus', 'commit', ...Object.keys(env.settings)],
      rows: [
        [env.node, env.postgres, env.database, String(env.cpus), env.commit, ...Object.values(env.settings)],
      ],
    }),
    '',
    '## Boundary table',
    '',
    markdown(boundaryTable(report.boundary)),
    '',
    '## Cases',
    '',
    'A case passes when a safe design (`expect: hold`) keeps every invariant and returns the exact outcome',
    'counts of its scenario, or when a negative control (`expect: violate`) is caught breaking one.',
    '',
    markdown(caseTable(report.cases)),
    '',
    notApplicableLine(report.cases) ?? '',
    '',
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
  if (report.isolation.length > 0) {
    lines.push(
      '## Isolation matrix',
      '',
      'Every case run with each session at the level (`run --isolation`). A level the design does not claim is',
      'measured only: what broke there is its boundary, not a failure of the run.',
      '',
      markdown(isolationTable(report.isolation)),
      '',
    );
  }
  if (report.uncovered.length > 0) {
    lines.push('## Not covered (--require-coverage)', '', ...report.uncovered.map((u) => `- \`${u}\``), '');
  }
  if (failed.length > 0) {
    lines.push('## Failures', '');
    for (const c of failed) lines.push(`- \`${c.id}\`: ${c.boundary}`);
    lines.push('');
  }
  return lines.join('\n');
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

/** Writes `<root>/<stamp>/` and replaces `<root>/latest/` with a copy; returns the stamped folder. */
export function writeReportFiles(root: string, report: Report): string {
  const folder = reportFolder(root, report.generatedAt);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(folder, 'report.md'), renderMarkdown(report));
  refreshLatest(root, folder, 'latest');
  return folder;
}
