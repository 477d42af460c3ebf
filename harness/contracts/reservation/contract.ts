/**
 * The reservation contract (docs/contract.md): reserving limited stock — reserve, confirm, release, expire,
 * status, remaining — as one object the harness takes. Its designs are strategies (strategies/contract.ts,
 * or one SQL file of functions), its scenarios the files of fixtures/reservation/scenarios/, its cases driven by clients on
 * worker threads, a script or an interleaving, and judged on its invariants and its model.
 */
import type { StrategyRef } from '../../../strategies/contract.ts';
import type { RunSettings } from '../../contract/case-settings.ts';
import { type CaseWork, type Contract, type Selection, START_RANK } from '../../contract/contract.ts';
import { explorationWork } from '../../contract/exploration-work.ts';
import { HARNESS_CONNECTIONS } from '../../database/preflight.ts';
import { isSqlDesignUrl } from '../../registry/sql-design-url.ts';
import { strategySchema } from '../../registry/strategy-module.ts';
import { strategyVariants } from '../../registry/strategy-variants.ts';
import { RESERVATION_BENCH } from './bench/bench-design.ts';
import { RESERVATION_TARGET } from './blackbox/contract-target.ts';
import type { CaseSpec } from './case/case-spec.ts';
import { SCENARIOS } from './case/index.ts';
import { paramsFor } from './case/params.ts';
import { runCase } from './case/run-case.ts';
import { runsAloneBecause } from './case/runs-alone.ts';
import type { Scenario } from './case/scenario.ts';
import { specScenario } from './case/spec-file.ts';
import { RESERVATION_STARTER } from './designs/design-starter.ts';
import { BUILT_IN_IDS, importStrategy, loadStrategy } from './designs/registry.ts';
import { checkSqlDesignsInstall } from './designs/sql-design-check.ts';
import { ClientPool } from './driver/client-pool.ts';
import { RESERVATION_EXPLORE } from './explore/reservation-explore.ts';
import { RESERVATION_SERVICE } from './http/contract-service.ts';
import type { ReservationReport } from './report/report-schema.ts';
import { RESERVATION_REPORT } from './report/reservation-report.ts';
import { RESERVATION_VERBS } from './spec/reservation-verbs.ts';
import type { CaseResult } from './verdict/case-result.ts';

/** Every case of the run, in the order the report lists them: scenario × strategy × level × repetition. */
function caseSpecs(
  selection: Selection<StrategyRef, Scenario, CaseResult>,
  settings: RunSettings,
): CaseSpec[] {
  const specs: CaseSpec[] = [];
  for (const scenario of selection.scenarios) {
    const params = paramsFor(scenario, settings.overrides);
    for (const ref of selection.designs) {
      for (const isolation of settings.isolation ?? [undefined]) {
        for (let repetition = 1; repetition <= settings.repeat; repetition++) {
          const at = isolation ? `@${isolation}` : '';
          const id = `${scenario.id}/${ref.strategy.id}${at}${settings.repeat > 1 ? `#${repetition}` : ''}`;
          const clustered = scenario.cluster && settings.cluster ? { cluster: settings.cluster } : {};
          specs.push({ id, scenario, ref, params, ...(isolation ? { isolation } : {}), ...clustered });
        }
      }
    }
  }
  return specs;
}

/** Where a case runs: alone when it reaches the whole server; a connection per client beside the harness's. */
export function placementOfCase(spec: CaseSpec): CaseWork<CaseResult>['placement'] {
  return {
    alone: runsAloneBecause(spec.scenario),
    connections: (spec.scenario.connections ?? spec.params.clients) + HARNESS_CONNECTIONS,
  };
}

/**
 * The run's cases, then each design's exploration: the explorations start first, the longest work of a
 * run (of a design that holds every program is run, where a control stops at its first finding).
 */
function plan(selection: Selection<StrategyRef, Scenario, CaseResult>, settings: RunSettings) {
  // One pool for every lane: its threads hold each node's memory, found by the case's schema; the cases'
  // drives take turns on it, their other work (sessions, children, waits, judging) runs side by side.
  const pool = new ClientPool(settings.threads);
  const cases = caseSpecs(selection, settings).map((spec): CaseWork<CaseResult> => {
    const placement = placementOfCase(spec);
    return {
      placement,
      rank: placement.alone === undefined ? START_RANK.case : START_RANK.alone,
      run: (db, caseSettings) => runCase(db, pool, spec, caseSettings),
    };
  });
  const explorations = explorationWork(selection, (ref) => ref.strategy.expect);
  return { work: [...cases, ...explorations], close: () => pool.close() };
}

export const RESERVATION = {
  id: 'reservation',
  title: 'Reservation contract (reserve, confirm, release, expire of limited stock)',
  designs: {
    builtInIds: BUILT_IN_IDS,
    schema: strategySchema,
    load: loadStrategy,
    importDesign: importStrategy,
    readsFile: isSqlDesignUrl,
    withVariants: strategyVariants,
    info: (ref: StrategyRef) => ({ design: ref.strategy, moduleUrl: ref.moduleUrl }),
    checkInstall: checkSqlDesignsInstall,
  },
  scenarios: { all: SCENARIOS, specFile: specScenario },
  bench: RESERVATION_BENCH,
  verbs: RESERVATION_VERBS,
  plan,
  report: RESERVATION_REPORT,
  explore: RESERVATION_EXPLORE,
  starter: RESERVATION_STARTER,
  service: RESERVATION_SERVICE,
  target: RESERVATION_TARGET,
} satisfies Contract<StrategyRef, Scenario, CaseResult, ReservationReport>;
