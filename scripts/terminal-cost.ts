/**
 * What the terminal tables of a full run cost to draw (cli-table3, harness/report/box-table.ts): the
 * committed full run's report (reports/examples/run/report.json, every case of `npm start`) rendered as `run`
 * prints it, the first time (cold: modules and string widths first used) and then the median of 10.
 * `npm run terminal-bench`; quote it from a run under the machine-wide lock.
 */
import { readFileSync } from 'node:fs';
import { median } from 'simple-statistics';
import type { Report } from '../harness/report/report.ts';
import { renderTerminal } from '../harness/report/terminal.ts';

const report = JSON.parse(
  readFileSync(new URL('../reports/examples/run/report.json', import.meta.url), 'utf8'),
) as Report;

const timed = () => {
  const started = performance.now();
  const text = renderTerminal(report);
  return { ms: performance.now() - started, lines: text.split('\n').length };
};

const first = timed();
const rest = Array.from({ length: 10 }, timed);
const ms = (x: number) => `${x.toFixed(1)} ms`;
console.log(
  `terminal tables of ${report.cases.length} cases + ${report.payments.length} payment cases: ${first.lines} lines; first render ${ms(first.ms)}, median of ${rest.length} after it ${ms(median(rest.map((r) => r.ms)))} (max ${ms(Math.max(...rest.map((r) => r.ms)))})`,
);
