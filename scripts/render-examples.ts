/**
 * Re-renders the reviewed example reports in reports/examples/ from the report.json each one holds, with no
 * database: report.md, report.html and, for the bench, bench.csv and the two charts are drawn from that
 * document alone. So a change to how a report is drawn refreshes the examples at once, while their figures
 * stay those of the run that made them; `npm run examples` makes new ones (scripts/refresh-examples.ts).
 *
 *   npm run examples:render
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BenchReport, writeBenchFiles } from '../harness/report/bench/bench-report.ts';
import { type Report, writeRunFiles } from '../harness/report/report.ts';
import { EXAMPLE_REPORTS } from './example-reports.ts';

for (const name of readdirSync(EXAMPLE_REPORTS)) {
  const folder = join(EXAMPLE_REPORTS, name);
  const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report | BenchReport;
  // The scale example (scripts/scale-example.ts) is a document of its own, drawn by that script.
  if (!('cases' in report)) continue;
  if ('bench' in report) writeBenchFiles(folder, report);
  else writeRunFiles(folder, report);
  console.error(`render-examples: reports/examples/${name} re-rendered from its report.json`);
}
