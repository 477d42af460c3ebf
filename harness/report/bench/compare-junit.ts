/**
 * `compare --junit FILE` (docs/ci.md): the comparison as JUnit, one `<testsuite>` per strategy and one
 * `<testcase>` per series both reports have, named as the table names it. A regression is a failure, a
 * series not compared (a failed trial, too few trials) is skipped with the reason, and any other verdict
 * passes with the ratio as output; series only one report has are skipped too, in a suite of their own.
 */
import type { JunitCase, JunitDocument, JunitOutcome, JunitSuite } from '../junit-xml.ts';
import { type Comparison, type SeriesComparison, seriesKey } from './compare.ts';

function ratioLine(s: SeriesComparison, unit: Comparison['unit']): string {
  const ci = s.ci95 ? ` (95% CI ${s.ci95.low}–${s.ci95.high})` : '';
  return `NEW ÷ BASE ${s.ratio}×${ci}; median ${s.base.median} → ${s.new.median} ${unit}${s.clientBound ? '; client-bound' : ''}`;
}

function outcomeOf(s: SeriesComparison, pct: number, unit: Comparison['unit']): JunitOutcome {
  if (s.verdict === 'not compared') return { kind: 'skipped', message: `not compared: ${s.reason}` };
  if (s.regression) {
    const message = `slower by more than ${pct}% with 95% confidence: ${ratioLine(s, unit)}`;
    return { kind: 'failure', type: 'regression', message, detail: message };
  }
  return { kind: 'passed', output: `${s.verdict}: ${ratioLine(s, unit)}` };
}

const onlyIn = (side: 'BASE' | 'NEW', key: string): JunitCase => ({
  name: key,
  classname: 'compare',
  outcome: { kind: 'skipped', message: `only in ${side}: not compared` },
});

export function comparisonJunit(comparison: Comparison): JunitDocument {
  const suites = new Map<string, JunitSuite>();
  for (const s of comparison.series) {
    const suite = suites.get(s.strategy) ?? { name: s.strategy, cases: [] };
    suite.cases.push({
      name: seriesKey(s),
      classname: s.strategy,
      outcome: outcomeOf(s, comparison.failOnRegressionPct, comparison.unit),
    });
    suites.set(s.strategy, suite);
  }
  const unmatched = [
    ...comparison.onlyInBase.map((key) => onlyIn('BASE', key)),
    ...comparison.onlyInNew.map((key) => onlyIn('NEW', key)),
  ];
  return {
    name: 'reservebench compare',
    suites: [
      ...suites.values(),
      ...(unmatched.length > 0 ? [{ name: 'only in one report', cases: unmatched }] : []),
    ],
  };
}
