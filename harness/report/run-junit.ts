/**
 * A run's report as JUnit (`run --junit FILE`, docs/ci.md): one `<testsuite>` per strategy, since a pull
 * request changes a design and its suite is where it shows red, and one `<testcase>` per case, named by
 * its id. A case fails in JUnit exactly when it fails the run: `fail` is a failure with its problems,
 * `broken` (it could not be measured) an error, an n/a case left uncovered under `--require-coverage` a
 * failure; any other n/a is skipped with its reason. A level the design does not claim (`expect: measure`)
 * never fails the run, so its case passes with what it showed as output. Every contract's cases join
 * their design's suite by the same rule.
 */
import type { CaseResultBase } from '../verdict/case-result.ts';
import type { JunitCase, JunitDocument, JunitOutcome, JunitSuite } from './junit-xml.ts';
import { type Report, reportedCases } from './report.ts';

type ReportedCase = CaseResultBase;

function failed(
  kind: 'failure' | 'error',
  type: 'fail' | 'broken' | 'not covered',
  problems: readonly string[],
  boundary: string,
): JunitOutcome {
  return {
    kind,
    type,
    message: problems.join('; ') || boundary,
    detail: [...problems, boundary].join('\n'),
  };
}

function measuredOnly(c: ReportedCase): JunitOutcome {
  const problems = c.status === 'fail' || c.status === 'broken' ? (c.problems ?? []) : [];
  const line = `measured only (a level the design does not claim): ${c.boundary}`;
  if (c.status === 'broken') return { kind: 'skipped', message: `${line}; ${problems.join('; ')}` };
  return { kind: 'passed', output: [line, ...problems].join('\n') };
}

function outcomeOf(c: ReportedCase, uncovered: ReadonlySet<string>): JunitOutcome {
  if (c.expect === 'measure') return measuredOnly(c);
  switch (c.status) {
    case 'pass':
      return { kind: 'passed', output: c.boundary };
    case 'fail':
      return failed('failure', 'fail', c.problems ?? [], c.boundary);
    case 'broken':
      return failed('error', 'broken', c.problems ?? [], c.boundary);
    case 'n/a':
      return uncovered.has(`${c.id}: ${c.reason}`)
        ? failed('failure', 'not covered', [`${c.reason} (--require-coverage)`], c.boundary)
        : { kind: 'skipped', message: c.reason ?? 'n/a' };
  }
}

function junitCase(c: ReportedCase, uncovered: ReadonlySet<string>): JunitCase {
  return {
    name: c.id,
    classname: c.strategy,
    ...(c.durationMs === undefined ? {} : { seconds: c.durationMs / 1000 }),
    outcome: outcomeOf(c, uncovered),
  };
}

export function runJunit(report: Report): JunitDocument {
  const uncovered = new Set(report.uncovered);
  const suites = new Map<string, JunitSuite>();
  const add = (strategy: string, junit: JunitCase) => {
    const suite = suites.get(strategy) ?? { name: strategy, cases: [] };
    suite.cases.push(junit);
    suites.set(strategy, suite);
  };
  for (const c of reportedCases(report)) add(c.strategy, junitCase(c, uncovered));
  return { name: 'reservebench run', timestamp: report.generatedAt, suites: [...suites.values()] };
}
