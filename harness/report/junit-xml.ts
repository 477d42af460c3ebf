/**
 * JUnit XML, the test-result format CI systems read (GitHub's test reporters, GitLab, Jenkins): a document
 * of suites of test cases, each passed, failed, in error or skipped. Built by hand rather than with
 * junit-report-builder, whose `skipped()` takes no message (5.1.2), while a case that is n/a must carry its
 * reason. The counts of every suite are computed from its cases here, so they cannot disagree.
 */

/** How a case ended: `failure` missed an expectation, `error` could not run to its end. */
export type JunitOutcome =
  | { kind: 'passed'; output?: string }
  | { kind: 'failure' | 'error'; type: string; message: string; detail: string }
  | { kind: 'skipped'; message: string };

export interface JunitCase {
  name: string;
  classname: string;
  /** Wall time in seconds, when it was measured. */
  seconds?: number;
  outcome: JunitOutcome;
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
}

export interface JunitDocument {
  name: string;
  /** ISO time the results were made, given to every suite. */
  timestamp?: string;
  suites: JunitSuite[];
}

export interface JunitCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export function junitCounts(cases: readonly JunitCase[]): JunitCounts {
  const of = (kind: JunitOutcome['kind']) => cases.filter((c) => c.outcome.kind === kind).length;
  return { tests: cases.length, failures: of('failure'), errors: of('error'), skipped: of('skipped') };
}

/** Characters XML 1.0 cannot hold at all, even escaped: C0 controls but tab and newlines, lone surrogates. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
/** In an attribute a parser turns a raw newline or tab into a space: they are written as references. */
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  '\n': '&#10;',
  '\r': '&#13;',
  '\t': '&#9;',
};

export function xmlText(value: string): string {
  return value.replace(NOT_XML, '\uFFFD').replace(/[&<>]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

export function xmlAttribute(value: string): string {
  return value.replace(NOT_XML, '\uFFFD').replace(/[&<>"\n\r\t]/g, (c) => ATTRIBUTE_ESCAPES[c] ?? c);
}

type Attributes = Record<string, string | number | undefined>;

function attributes(values: Attributes): string {
  return Object.entries(values)
    .flatMap(([name, v]) => (v === undefined ? [] : [` ${name}="${xmlAttribute(String(v))}"`]))
    .join('');
}

/** Seconds with millisecond precision, as JUnit writes them. */
const seconds = (s: number) => Math.round(s * 1000) / 1000;

function totalSeconds(cases: readonly JunitCase[]): number | undefined {
  const timed = cases.flatMap((c) => (c.seconds === undefined ? [] : [c.seconds]));
  return timed.length > 0 ? seconds(timed.reduce((a, b) => a + b, 0)) : undefined;
}

function outcomeLines(outcome: JunitOutcome): string[] {
  switch (outcome.kind) {
    case 'passed':
      return outcome.output === undefined ? [] : [`<system-out>${xmlText(outcome.output)}</system-out>`];
    case 'skipped':
      return [`<skipped${attributes({ message: outcome.message })}/>`];
    default: {
      const { kind, message, type, detail } = outcome;
      return [`<${kind}${attributes({ message, type })}>${xmlText(detail)}</${kind}>`];
    }
  }
}

function caseLines(c: JunitCase): string[] {
  const head = `<testcase${attributes({
    name: c.name,
    classname: c.classname,
    time: c.seconds === undefined ? undefined : seconds(c.seconds),
  })}`;
  const body = outcomeLines(c.outcome);
  return body.length === 0 ? [`${head}/>`] : [`${head}>`, ...body.map((l) => `  ${l}`), '</testcase>'];
}

function suiteLines(suite: JunitSuite, timestamp: string | undefined): string[] {
  const head = attributes({
    name: suite.name,
    ...junitCounts(suite.cases),
    time: totalSeconds(suite.cases),
    timestamp,
  });
  return [`<testsuite${head}>`, ...suite.cases.flatMap(caseLines).map((l) => `  ${l}`), '</testsuite>'];
}

/** The document as JUnit XML: `<testsuites>` holding one `<testsuite>` per suite, counts on both. */
export function renderJunitXml(document: JunitDocument): string {
  const cases = document.suites.flatMap((s) => s.cases);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: document.name, ...junitCounts(cases), time: totalSeconds(cases) })}>`,
    ...document.suites.flatMap((s) => suiteLines(s, document.timestamp)).map((l) => `  ${l}`),
    '</testsuites>',
    '',
  ].join('\n');
}
