/**
 * The run around a black box's cases (`run --target`, harness/contract/contract-target.ts): no database,
 * so no server version or settings to report; the same verdict rules as any run (runOk); the sources of
 * the scenarios that ran, and the one "design" — the service.
 */
import { availableParallelism } from 'node:os';
import type { ScenarioBase } from '../contract/contract.ts';
import { clientVersions, type Environment, gitCommit } from '../database/environment.ts';
import { unhandledErrorCount } from '../registry/unhandled-errors.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import { fatalCoverageGaps, runOk } from './run-ok.ts';
import { runSources } from './run-sources.ts';
import type { AnyContract, SuiteResult } from './suite.ts';

/** The run's own facts: no database, so no server version or settings to report. */
function environment(): Environment {
  return {
    node: process.version,
    client: clientVersions(),
    postgres: 'none (black box)',
    settings: {},
    cpus: availableParallelism(),
    commit: gitCommit(),
    database: 'target',
  };
}

/** The result of a run whose `cases` drove `design`, a service speaking `contract`'s API. */
export function blackBoxRun(
  contract: AnyContract,
  run: { design: unknown; scenarios: readonly ScenarioBase[]; cases: CaseResultBase[] },
  requireCoverage: boolean,
): SuiteResult {
  const { cases } = run;
  const uncovered = fatalCoverageGaps(cases, requireCoverage);
  const unhandledErrors = unhandledErrorCount();
  return {
    ok: runOk({ cases, uncovered, unhandledErrors }),
    unhandledErrors,
    environment: environment(),
    sources: runSources([{ contract, selection: { designs: [], scenarios: run.scenarios } }]),
    results: [{ contract, designs: [run.design], cases }],
    kept: [],
    uncovered,
  };
}
