/**
 * Where a command's results reach CI (docs/ci.md): the JUnit file of `--junit FILE`, and under GitHub
 * Actions an annotation per failing case (on stderr, so stdout stays the report `--json` prints) and a
 * summary appended to the job's summary page. Called once the results are known, whatever the verdict: a
 * failing run is when CI needs them most.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { Errors, oneLine } from '../errors.ts';
import { annotationLines, stepSummary } from '../report/github-actions.ts';
import { type JunitDocument, renderJunitXml } from '../report/junit-xml.ts';
import { shown } from './cli-arguments.ts';

export function publishResults(junit: string | undefined, document: JunitDocument, ok: boolean): void {
  if (junit !== undefined) {
    try {
      writeFileSync(junit, renderJunitXml(document));
    } catch (error: unknown) {
      // Proved writable before the run (junitFile); what went away since is one line, not a stack.
      throw Errors.badInput(`cannot write --junit ${shown(junit)}: ${oneLine(error)}`);
    }
  }
  if (process.env.GITHUB_ACTIONS !== 'true') return;
  for (const line of annotationLines(document)) process.stderr.write(`${line}\n`);
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (!summary) return;
  try {
    appendFileSync(summary, stepSummary(document, ok));
  } catch (error: unknown) {
    // The verdict is the exit code's; a summary page that cannot be written does not change it.
    process.stderr.write(`reservebench: cannot append to GITHUB_STEP_SUMMARY: ${oneLine(error)}\n`);
  }
}
