/**
 * `run --postgres 15,18`: the suite once per PostgreSQL major, one embedded server after the other (never
 * side by side: each has the machine to itself, as a single run does). Each version's cases are tagged
 * with it (`pg15/contention/hot-row`, `postgres: "15.18"`), so the ids stay unique and the report can lay
 * them out as design × version; the run passes only if every version's cases do.
 */

import type { PostgresMajor } from '../database/postgres-versions.ts';
import { unhandledErrorCount } from '../registry/unhandled-errors.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import { runOk } from './run-ok.ts';
import { type ContractResults, runSuite, type SuiteOptions, type SuiteResult } from './suite.ts';

const tagged = (major: PostgresMajor, postgres: string, c: CaseResultBase): CaseResultBase => ({
  ...c,
  id: `pg${major}/${c.id}`,
  postgres,
});

/** The environment of a run on several servers: the first's, with every server's version. */
function mergedEnvironment(results: readonly SuiteResult[]): SuiteResult['environment'] | undefined {
  const first = results[0];
  if (!first) return undefined;
  return { ...first.environment, postgres: results.map((r) => r.environment.postgres).join(', ') };
}

/** Each contract's cases of every version, one version after the other. */
function mergedResults(results: readonly SuiteResult[]): ContractResults[] {
  const [first] = results;
  return (first?.results ?? []).map((one, index) => ({
    ...one,
    cases: results.flatMap((r) => r.results[index]?.cases ?? []),
  }));
}

export async function runOnVersions(
  options: SuiteOptions,
  majors: readonly PostgresMajor[],
): Promise<SuiteResult> {
  if (majors.length <= 1) return runSuite({ ...options, postgres: majors[0] });
  const results: SuiteResult[] = [];
  for (const major of majors) {
    // The server's own version string is known once it runs; the case lines name the major meanwhile.
    const { onCase } = options;
    const result = await runSuite({
      ...options,
      postgres: major,
      ...(onCase ? { onCase: (contract, c) => onCase(contract, { ...c, id: `pg${major}/${c.id}` }) } : {}),
    });
    const postgres = result.environment.postgres;
    results.push({
      ...result,
      results: result.results.map((r) => ({ ...r, cases: r.cases.map((c) => tagged(major, postgres, c)) })),
      uncovered: result.uncovered.map((u) => `pg${major}/${u}`),
    });
  }
  const merged = mergedResults(results);
  const cases = merged.flatMap((r) => r.cases);
  const uncovered = results.flatMap((r) => r.uncovered);
  const environment = mergedEnvironment(results);
  if (!environment) throw new Error('no PostgreSQL version was run');
  const unhandledErrors = unhandledErrorCount();
  return {
    // The rule of a single run, over every version (a design n/a on one version is not a failure of it).
    ok: runOk({ cases, uncovered, unhandledErrors }),
    unhandledErrors,
    environment,
    // Every version ran the same files.
    sources: results[0]?.sources ?? [],
    results: merged,
    kept: results.flatMap((r) => r.kept),
    uncovered,
  };
}
