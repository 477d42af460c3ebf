/** What `reservebench report` does (its options: report-options.ts), imported only when it runs. */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Errors, EXIT, oneLine } from '../../errors.ts';
import { type BenchReport, writeBenchFiles } from '../../report/bench/bench-report.ts';
import { renderBenchTerminal } from '../../report/bench/bench-terminal.ts';
import { scorecardRows, scorecardTable } from '../../report/bench/scorecard.ts';
import { benchReportSchema } from '../../report/bench-report-schema.ts';
import { renderHtmlReport } from '../../report/html-report.ts';
import { markdownTable } from '../../report/markdown-table.ts';
import { type Report, refreshLatest, reportFolder, writeRunFiles } from '../../report/report.ts';
import { reportSchema } from '../../report/report-schema.ts';
import { render, renderTerminal } from '../../report/terminal.ts';
import { reportsFolder } from '../cli-arguments.ts';
import type { CommandContext } from '../command-definition.ts';
import type { ReportArgs } from './report-options.ts';

type Saved =
  | { file: string; kind: 'run'; report: Report }
  | { file: string; kind: 'bench'; report: BenchReport };

/** A saved report, checked against its schema: a file that is neither exits 2 with one line. */
function readSaved(file: string): Saved {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error: unknown) {
    throw Errors.badInput(`${JSON.stringify(file)} cannot be read as JSON: ${oneLine(error)}`);
  }
  const isBench = typeof document === 'object' && document !== null && 'bench' in document;
  const parsed = (isBench ? benchReportSchema : reportSchema).safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw Errors.badInput(
      `${JSON.stringify(file)} is not a ${isBench ? 'bench' : 'run'} report (${issue?.path.join('.') || 'the document'}: ${oneLine(issue?.message ?? 'invalid')})`,
    );
  }
  return isBench
    ? { file, kind: 'bench', report: parsed.data as BenchReport }
    : { file, kind: 'run', report: parsed.data as Report };
}

function scorecardMarkdown(saved: readonly Saved[], table: ReturnType<typeof scorecardTable>): string {
  return [
    '# reservebench scorecard',
    '',
    'One row per design: the scenarios it held of those it was measured in and where it broke or was caught',
    "(as the run's matrix marks it), median throughput and p99 per client count (durable commits, no",
    'admission), and throughput with durable commits ÷ without where a bench ran both.',
    '',
    ...saved.map(
      (s, i) =>
        `- ${s.kind} report: \`${s.file}\` (${s.report.generatedAt}), re-rendered in [${folderOf(s, i)}/](${folderOf(s, i)}/report.md)`,
    ),
    '',
    markdownTable([table.headers, ...table.rows]),
    '',
  ].join('\n');
}

const folderOf = (s: Saved, i: number) => (s.kind === 'run' ? 'run' : `bench-${i}`);

export async function reportCommand(args: ReportArgs, context: CommandContext): Promise<number> {
  const saved = args.files.map(readSaved);
  const runs = saved.filter((s) => s.kind === 'run');
  if (runs.length > 1) throw Errors.badInput(`report takes at most one run report, got ${runs.length}`);
  const run = runs[0]?.report as Report | undefined;
  const rows = scorecardRows(
    run,
    saved.flatMap((s) => (s.kind === 'bench' ? [s.report.bench] : [])),
  );
  const root = reportsFolder(args.reports, context.label('reports'));
  const folder = reportFolder(root, new Date().toISOString(), 'scorecard');
  saved.forEach((s, i) => {
    const into = join(folder, folderOf(s, i));
    mkdirSync(into, { recursive: true });
    if (s.kind === 'run') writeRunFiles(into, s.report);
    else {
      writeFileSync(join(into, 'report.json'), `${JSON.stringify(s.report, null, 2)}\n`);
      writeBenchFiles(into, s.report);
    }
  });
  const table = scorecardTable(rows);
  const short = scorecardTable(rows, true);
  const markdown = scorecardMarkdown(saved, table);
  writeFileSync(join(folder, 'scorecard.md'), markdown);
  writeFileSync(join(folder, 'scorecard.html'), renderHtmlReport(markdown));
  refreshLatest(root, folder, 'latest-scorecard');
  if (args.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else
    process.stdout.write(
      [
        ...saved.map((s) => (s.kind === 'run' ? renderTerminal(s.report) : renderBenchTerminal(s.report))),
        'Scorecard (per design: scenarios held, where it breaks, speed per client count, durable ÷ async)',
        render(short, [28, 10]),
        `scorecard: ${folder}/scorecard.md`,
        '',
      ].join('\n'),
    );
  return EXIT.ok;
}
