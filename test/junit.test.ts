/**
 * Issue 27, item 5: results in CI's own view. A run's report and a comparison as JUnit XML, read back by a
 * real XML parser with the counts of the report they came from; the failing cases as GitHub annotations
 * (escaped as GitHub's toolkit escapes them) and as the job summary. No server: the committed example
 * report, a small hand-made one with every kind of case, and the committed bench baseline.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { publishResults } from '../harness/cli/ci-results.ts';
import { COMPARE } from '../harness/cli/commands/compare-command.ts';
import { runWith } from '../harness/cli/main.ts';
import { compareReports, readBenchReport } from '../harness/report/bench/compare.ts';
import { comparisonJunit } from '../harness/report/bench/compare-junit.ts';
import {
  annotationLines,
  escapeData,
  escapeProperty,
  MAX_ANNOTATIONS,
  stepSummary,
} from '../harness/report/github-actions.ts';
import { renderJunitXml } from '../harness/report/junit-xml.ts';
import type { Report } from '../harness/report/report.ts';
import { runJunit } from '../harness/report/run-junit.ts';
import { countsOf, parseJunit } from './junit-reader.ts';

const EXAMPLE_RUN = 'reports/examples/run/report.json';
const BASELINE = 'reports/examples/bench/report.json';
const example = JSON.parse(readFileSync(EXAMPLE_RUN, 'utf8')) as Report;
const scratch = mkdtempSync(join(tmpdir(), 'reservebench-junit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

// A hand-made report with every kind of case, built on the example's so each is a valid case.
const FAIL_ID = 'contention/fails|one';
const PROBLEMS = ['oversold 3 (expected 0)', 'drift <2> & "x"\nthen \u0007'];
const passed = example.cases.find((c) => c.id === 'contention/hot-row');
const skipped = example.cases.find((c) => c.status === 'n/a');
if (passed?.status !== 'pass' || skipped?.status !== 'n/a') throw new Error('the example report changed');
const failCase: Report['cases'][number] = {
  ...passed,
  id: FAIL_ID,
  strategy: 'fails-one',
  status: 'fail',
  problems: PROBLEMS,
  boundary: 'failed: oversold',
};
const skippedCase: Report['cases'][number] = {
  ...skipped,
  id: 'expiry/skipped-one',
  strategy: 'skipped-one',
  reason: 'negative control: contention catches it',
};
const failedPayment: Report['payments'][number] = {
  id: 'payment-duplicates/payment-check-then-insert',
  contract: 'payment',
  scenario: 'payment-duplicates',
  strategy: 'payment-check-then-insert',
  expect: 'hold',
  status: 'fail',
  fired: ['onePaymentPerKey'],
  problems: ['onePaymentPerKey 1: keys with more than one payment (idem ×20)'],
  boundary: 'broke: onePaymentPerKey',
  outcomes: { CREATED: 20 },
};

const handMade: Report = {
  ...example,
  ok: false,
  payments: [],
  cases: [
    passed,
    failCase,
    {
      id: 'contention/broken-one',
      scenario: 'contention',
      strategy: 'broken-one',
      expect: 'hold',
      status: 'broken',
      outcomes: {},
      invariants: null,
      boundary: 'broken: could not be measured',
      problems: ['a session never progressed'],
    },
    skippedCase,
    {
      ...skippedCase,
      id: 'expiry/uncovered-one',
      reason: 'not covered: expiry — no expire',
      coverage: { missing: ['no expire'] },
    },
    { ...failCase, id: 'contention/hot-row@serializable', expect: 'measure', isolation: 'serializable' },
  ],
  uncovered: ['expiry/uncovered-one: not covered: expiry — no expire'],
};

// Reservation cases and the payment contract's alike: each is one JUnit case.
const everyCase = (report: Report) => [...report.cases, ...report.payments];
const byStatus = (report: Report, status: string) =>
  everyCase(report).filter((c) => c.status === status).length;

describe('run --junit: the report as JUnit XML', () => {
  it('the committed example report: a JUnit reader counts what report.json holds', () => {
    const parsed = parseJunit(renderJunitXml(runJunit(example)));
    const counts = countsOf(parsed);
    expect(example.payments.length).toBeGreaterThan(0);
    expect(counts.tests).toBe(everyCase(example).length);
    expect(counts.failures).toBe(byStatus(example, 'fail'));
    expect(counts.errors).toBe(byStatus(example, 'broken'));
    expect(counts.skipped).toBe(byStatus(example, 'n/a'));
    expect(counts.cases.map((c) => c.name).sort()).toEqual(
      everyCase(example)
        .map((c) => c.id)
        .sort(),
    );
    // One suite per strategy, each case's classname its strategy.
    const strategies = [...new Set(everyCase(example).map((c) => c.strategy))];
    expect(parsed.testsuites.testsuite.map((s) => s.name)).toEqual(strategies);
    for (const suite of parsed.testsuites.testsuite) {
      expect(new Set(suite.testcase.map((c) => c.classname))).toEqual(new Set([suite.name]));
    }
    const contention = counts.cases.find((c) => c.name === 'contention/hot-row');
    const reported = example.cases.find((c) => c.id === 'contention/hot-row');
    expect(Number(contention?.time)).toBe((reported?.durationMs ?? Number.NaN) / 1000);
  });

  it("a failing payment case is a failure in its design's suite, with its problems", () => {
    const parsed = parseJunit(
      renderJunitXml(runJunit({ ...handMade, cases: [], payments: [failedPayment] })),
    );
    const counts = countsOf(parsed);
    expect(counts).toMatchObject({ tests: 1, failures: 1, errors: 0, skipped: 0 });
    expect(parsed.testsuites.testsuite.map((s) => s.name)).toEqual(['payment-check-then-insert']);
    expect(counts.cases[0]?.failure?.message).toBe(failedPayment.problems?.[0]);
  });

  it('a fail is a failure with its problems, broken an error, n/a skipped with its reason', () => {
    const parsed = parseJunit(renderJunitXml(runJunit(handMade)));
    const counts = countsOf(parsed);
    expect(counts).toMatchObject({ tests: 6, failures: 2, errors: 1, skipped: 1 });
    const named = (id: string) => counts.cases.find((c) => c.name === id);
    const fail = named(FAIL_ID)?.failure;
    // The bell cannot be written in XML 1.0 at all: it is the replacement character.
    expect(fail?.message).toBe(PROBLEMS.join('; ').replace('\u0007', '\uFFFD'));
    expect(fail?.type).toBe('fail');
    expect(fail?.['#text']).toContain(PROBLEMS[0]);
    expect(named('contention/broken-one')?.error).toMatchObject({
      type: 'broken',
      message: 'a session never progressed',
    });
    expect(named('expiry/skipped-one')?.skipped?.message).toBe('negative control: contention catches it');
    expect(named('expiry/uncovered-one')?.failure?.message).toBe(
      'not covered: expiry — no expire (--require-coverage)',
    );
    // A level the design does not claim never fails the run, so it does not fail in JUnit either.
    const measured = named('contention/hot-row@serializable');
    expect([measured?.failure, measured?.error, measured?.skipped]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('escapes what XML cannot hold as it is: markup, quotes, newlines in attributes, control characters', () => {
    const parsed = parseJunit(renderJunitXml(runJunit(handMade)));
    const fail = parsed.testsuites.testsuite.flatMap((s) => s.testcase).find((c) => c.name === FAIL_ID);
    expect(fail?.failure?.message).toContain('<2> & "x"\nthen \uFFFD');
  });
});

describe('compare --junit: the comparison as JUnit XML', () => {
  const base = readBenchReport('BASE', BASELINE);
  const slower = structuredClone(base);
  const [first, second] = slower.bench;
  for (const trial of first?.trials ?? []) trial.throughput *= 0.3;
  slower.bench = slower.bench.filter((s) => s !== second);

  it('a series is a test case, a regression a failure, a series only one report has is skipped', () => {
    const comparison = compareReports(base, slower, 10);
    const counts = countsOf(parseJunit(renderJunitXml(comparisonJunit(comparison))));
    expect(comparison.regressions).toBe(1);
    expect(counts).toMatchObject({
      tests: comparison.series.length + comparison.onlyInBase.length + comparison.onlyInNew.length,
      failures: comparison.regressions,
      errors: 0,
      skipped: comparison.series.filter((s) => s.verdict === 'not compared').length + 1,
    });
    const regression = counts.cases.find((c) => c.failure !== undefined);
    expect(regression?.name).toBe(`${first?.strategy} × ${first?.clients}`);
    expect(regression?.failure?.message).toMatch(
      /^slower by more than 10% with 95% confidence: NEW ÷ BASE 0\.3×/,
    );
  });

  it('the command writes the file, with the exit code of the gate', async () => {
    const newPath = join(scratch, 'slower.json');
    writeFileSync(newPath, JSON.stringify(slower));
    const junit = join(scratch, 'made', 'compare.xml');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const code = await runWith(COMPARE, { base: BASELINE, new: newPath, json: false, junit });
    expect(code).toBe(1);
    expect(countsOf(parseJunit(readFileSync(junit, 'utf8'))).failures).toBe(1);
  });
});

describe('under GitHub Actions: annotations and the job summary', () => {
  it('escapes a workflow command as GitHub documents: %, CR, LF; in a property also : and ,', () => {
    expect(escapeData('50% off\r\nnext: a, b')).toBe('50%25 off%0D%0Anext: a, b');
    expect(escapeProperty('50% off\r\nnext: a, b')).toBe('50%25 off%0D%0Anext%3A a%2C b');
  });

  it('one ::error per failing case, its title the case and its message every problem', () => {
    const lines = annotationLines(runJunit(handMade));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      `::error title=reservebench run%3A ${FAIL_ID}::${escapeData([...PROBLEMS, 'failed: oversold'].join('\n'))}`,
    );
    expect(lines.every((line) => !line.includes('\n'))).toBe(true);
    expect(annotationLines(runJunit(example))).toEqual([]);
  });

  it('past the step limit of 10 annotations, the last one counts the rest', () => {
    const many = {
      ...handMade,
      cases: Array.from({ length: 25 }, (_, i) => ({ ...failCase, id: `c/${i}` })),
    };
    const lines = annotationLines(runJunit(many));
    expect(lines).toHaveLength(MAX_ANNOTATIONS);
    expect(lines.at(-1)).toMatch(/^::error title=reservebench run%3A 16 more failing::/);
  });

  it('the summary: the verdict, the counts and the failing cases, a | in a cell escaped', () => {
    const summary = stepSummary(runJunit(handMade), false);
    expect(summary).toMatch(/^### reservebench run: NOT ok\n/);
    expect(summary).toMatch(/\| 6 +\| 2 +\| 2 +\| 1 +\| 1 +\|/);
    expect(summary).toContain(`| ${FAIL_ID.replace('|', '\\|')} `);
    expect(summary).toContain('&lt;2&gt; &amp; "x"<br>then');
    expect(stepSummary(runJunit(example), true)).toMatch(/^### reservebench run: ok\n/);
    const allSkipped = { ...handMade, cases: [skippedCase] };
    expect(stepSummary(runJunit(allSkipped), false)).toContain('nothing was judged, every case was skipped');
  });

  it('publishes the JUnit file always, annotations and the summary only under GitHub Actions', () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => stderr.push(String(chunk)) > 0);
    const junit = join(scratch, 'run.xml');
    const summary = join(scratch, 'summary.md');
    publishResults(junit, runJunit(handMade), false);
    expect(stderr).toEqual([]);
    expect(countsOf(parseJunit(readFileSync(junit, 'utf8'))).tests).toBe(6);

    vi.stubEnv('GITHUB_ACTIONS', 'true');
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    writeFileSync(summary, '# before\n');
    publishResults(undefined, runJunit(handMade), false);
    expect(
      stderr
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('::error ')),
    ).toHaveLength(3);
    expect(readFileSync(summary, 'utf8')).toMatch(/^# before\n### reservebench run: NOT ok\n/);
  });
});
