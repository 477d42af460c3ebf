/**
 * The model is the documented contract, so an honest design never fails on what the contract allows:
 * every spec the default run's explorer wrote for a negative control (each one a history that fails
 * that control), replayed against every built-in design that should hold and the shipped plain-SQL design,
 * passes; so does the history the explorer once failed honest designs on (a recorded key sent with a sku
 * that has no stock: KEY_REUSED, where the model answered BAD_REQUEST only), and the same spec fails a
 * design that answers it against the contract.
 */
import { existsSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { SHIPPED_SQL_DESIGN } from './broken-sql-designs.ts';
import { DEFAULT_RUN_TIMEOUT_MS, exploredInDefaultRun } from './default-run.ts';
import { runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const FALSE_ALARM_SPEC = 'test/fixtures/specs/key-reused-no-stock.spec';
/** docs/contract.md's decision where the contract was silent: a refusal records nothing. */
const REFUSAL_SPEC = 'test/fixtures/specs/refusal-records-nothing.spec';

describe('the model allows what the contract allows', () => {
  it(
    "every control's explored spec, and the false-alarm spec, pass on every design that should hold",
    async () => {
      const { report: explored } = await exploredInDefaultRun();
      const controls = explored.cases.filter((c) => c.expect === 'violate' && c.status === 'pass');
      const specs = controls.flatMap((c) =>
        'exploration' in c && c.exploration?.spec ? [c.exploration.spec] : [],
      );
      // Every control the explorer can reach left a spec (async-commit is out of its reach: n/a).
      expect(specs.length).toBe(controls.length);
      expect(specs.every((s) => existsSync(s))).toBe(true);
      const holding = explored.cases.filter((c) => c.expect === 'hold').map((c) => c.strategy);
      expect(holding.length).toBeGreaterThan(5);
      const { report } = await runJson(serverUrl, [
        '--strategy',
        [...holding, SHIPPED_SQL_DESIGN].join(','),
        '--spec',
        [...specs, FALSE_ALARM_SPEC, REFUSAL_SPEC].join(','),
      ]);
      const judged = report.cases.filter((c) => c.status === 'pass' || c.status === 'fail');
      expect(judged.length).toBeGreaterThan(0);
      const failed = report.cases.filter((c) => c.status === 'fail' || c.status === 'broken');
      const problems = (c: (typeof failed)[number]) => ('problems' in c ? c.problems.join('; ') : 'broken');
      expect(failed.map((c) => `${c.id}: ${problems(c)}`)).toEqual([]);
      // A spec calling an operation a design lacks does not cover it (n/a, said why), never fails it.
      for (const c of report.cases.filter((c) => c.status === 'n/a'))
        expect(c.boundary, c.id).toMatch(/^n\/a: not covered: .* — (no \w+|\w+ declares no pause point)/);
      // The false-alarm spec needs nothing optional: every design takes it and passes.
      const alarm = report.cases.filter((c) => c.scenario === 'key-reused-no-stock');
      expect(alarm.map((c) => c.status)).toEqual(alarm.map(() => 'pass'));
      expect(alarm).toHaveLength(holding.length + 1);
      const refusal = report.cases.filter((c) => c.scenario === 'refusal-records-nothing');
      expect(refusal.filter((c) => c.status === 'pass').length).toBeGreaterThan(holding.length / 2);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );

  it('and the false-alarm spec still fails a design that answers it against the contract', async () => {
    // A fresh key on a sku with no stock is BAD_REQUEST (rule reserve.refused); this design says SOLD_OUT.
    const { report } = await runJson(serverUrl, [
      '--strategy',
      'test/fixtures/checks/no-stock-answered-sold-out.ts',
      '--spec',
      FALSE_ALARM_SPEC,
    ]);
    const [c] = report.cases;
    expect(c?.status).toBe('fail');
    expect(c && 'problems' in c ? c.problems.join('\n') : '').toMatch(
      /^not linearizable: reserve k2 u2 sku-b answered SOLD_OUT .*the model answers BAD_REQUEST there by the contract's rule reserve\.refused/,
    );
    // Only the history sees it: every count of the case holds.
    expect(c && 'problems' in c ? c.problems : []).toHaveLength(1);
  });
});
