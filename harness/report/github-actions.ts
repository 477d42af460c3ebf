/**
 * Results in GitHub Actions' own view, made from the JUnit document: an `::error` workflow command per
 * failing case, which the job shows as an annotation, and a short Markdown summary for the job's summary
 * page (GITHUB_STEP_SUMMARY). Both are text, escaped as GitHub's toolkit escapes it; @actions/core would
 * bring an HTTP client and its dependencies for these few lines (docs/ci.md).
 */
import { markdownTable } from 'markdown-table';
import { type JunitCase, type JunitDocument, junitCounts } from './junit-xml.ts';

/** A step shows at most 10 error annotations and drops the rest without a word. */
export const MAX_ANNOTATIONS = 10;
/** Failing cases the summary lists by name; the JUnit file has them all. */
export const MAX_SUMMARY_ROWS = 50;

/** A workflow command's message: `%`, CR and LF would end or garble the command. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value (`title=`): also `:` and `,`, which end the value. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface Failing {
  suite: string;
  testCase: JunitCase;
  kind: 'failure' | 'error';
  detail: string;
  message: string;
}

function failingCases(document: JunitDocument): Failing[] {
  return document.suites.flatMap((suite) =>
    suite.cases.flatMap((testCase) => {
      const { outcome } = testCase;
      if (outcome.kind !== 'failure' && outcome.kind !== 'error') return [];
      return [
        { suite: suite.name, testCase, kind: outcome.kind, detail: outcome.detail, message: outcome.message },
      ];
    }),
  );
}

const annotation = (title: string, message: string) =>
  `::error title=${escapeProperty(title)}::${escapeData(message)}`;

/** One `::error` line per failing case; past the step's limit, the last line counts the rest. */
export function annotationLines(document: JunitDocument): string[] {
  const failing = failingCases(document);
  const shown = failing.length > MAX_ANNOTATIONS ? failing.slice(0, MAX_ANNOTATIONS - 1) : failing;
  const lines = shown.map((f) => annotation(`${document.name}: ${f.testCase.name}`, f.detail));
  const more = failing.length - shown.length;
  if (more > 0) {
    lines.push(
      annotation(`${document.name}: ${more} more failing`, 'see the job summary and the JUnit file'),
    );
  }
  return lines;
}

/** A table cell: a `|` would end the cell, a newline the row, and `<` start HTML. */
function cell(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, '<br>');
}

/** The verdict, the counts and the failing cases, as Markdown for the job summary. */
export function stepSummary(document: JunitDocument, ok: boolean): string {
  const counts = junitCounts(document.suites.flatMap((s) => s.cases));
  const passed = counts.tests - counts.failures - counts.errors - counts.skipped;
  const failing = failingCases(document);
  const listed = failing.slice(0, MAX_SUMMARY_ROWS);
  const lines = [
    `### ${document.name}: ${ok ? 'ok' : 'NOT ok'}`,
    '',
    markdownTable([
      ['tests', 'passed', 'failures', 'errors', 'skipped'],
      [counts.tests, passed, counts.failures, counts.errors, counts.skipped].map(String),
    ]),
    '',
  ];
  if (listed.length > 0) {
    lines.push(
      markdownTable([
        ['case', 'suite', 'result', 'problems'],
        ...listed.map((f) => [cell(f.testCase.name), cell(f.suite), f.kind, cell(f.message)]),
      ]),
      '',
    );
  }
  if (!ok && failing.length === 0) {
    // The only way a run fails with no failing case: every case was n/a, and judging nothing is no pass.
    lines.push('NOT ok with no failing case: nothing was judged, every case was skipped.', '');
  }
  if (failing.length > listed.length) {
    lines.push(`… and ${failing.length - listed.length} more failing: see the JUnit file.`, '');
  }
  return `${lines.join('\n')}\n`;
}
