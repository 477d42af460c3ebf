/**
 * `run --target`: every selected scenario against one black box, each case through the same runCase as a
 * strategy (same plans, clients, expectations, checks and judgement), with no database of the run's own.
 * What the run could and could not do is summed up for the report (`target`); the run's result around the
 * cases is the shared harness's (harness/suite/black-box-run.ts).
 */

import type { StrategyRef } from '../../../../strategies/contract.ts';
import type { TargetCases } from '../../../contract/contract-target.ts';
import { isMeasured } from '../../../verdict/case-result.ts';
import { paramsFor } from '../case/params.ts';
import { runCase } from '../case/run-case.ts';
import type { Scenario } from '../case/scenario.ts';
import type { ReservationReport } from '../report/report-schema.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { BlackBoxDriver } from './black-box-driver.ts';
import type { HttpBlackBox } from './http-black-box.ts';
import { noDatabase } from './no-database.ts';

/** The design the report names for a black box: the service, its module URL none. */
export const targetRef = (target: HttpBlackBox): StrategyRef => ({
  strategy: target.strategy,
  moduleUrl: 'black-box:target',
});

/** Every scenario `repeat` times against the black box, one after the other: they share its one state. */
export async function runTargetCases(
  target: HttpBlackBox,
  scenarios: readonly Scenario[],
  options: TargetCases<CaseResult>,
): Promise<CaseResult[]> {
  const db = noDatabase();
  const driver = new BlackBoxDriver(target);
  const ref = targetRef(target);
  const cases: CaseResult[] = [];
  for (const scenario of scenarios) {
    const params = paramsFor(scenario, options.overrides);
    for (let repetition = 1; repetition <= options.repeat; repetition++) {
      const id = `${scenario.id}/${target.strategy.id}${options.repeat > 1 ? `#${repetition}` : ''}`;
      target.beginCase(id);
      const began = performance.now();
      const result = {
        ...(await runCase(
          db,
          driver,
          { id, scenario, ref, params, blackBox: target },
          { keepFailed: false, timeoutMs: options.timeoutMs, permutations: 'listed' },
        )),
        durationMs: Math.round(performance.now() - began),
      };
      cases.push(result);
      options.onCase?.(result);
    }
  }
  return cases;
}

/** The report's `target` section: what ran black-box, what did not and why, and every exchange. */
export function targetSection(
  target: HttpBlackBox,
  cases: readonly CaseResult[],
): NonNullable<ReservationReport['target']> {
  const { settings } = target;
  const ran = [...new Set(cases.filter((c) => c.status !== 'n/a').map((c) => c.scenario))];
  const notApplicable = [
    ...new Map(
      cases.flatMap((c) =>
        c.status === 'n/a' ? [[c.scenario, { scenario: c.scenario, reason: c.reason }]] : [],
      ) as [string, { scenario: string; reason: string }][],
    ).values(),
  ];
  const notes: string[] = [];
  if (settings.setup.kind === 'none') {
    notes.push(
      'no --target-setup, and POST /admin/reset is off: no scenario could load its stock. Every built-in scenario judges against the stock it loads (exact HELD/SOLD_OUT counts; drift = total − remaining − active), so none tolerates stock already there, and none ran',
    );
  }
  if (!settings.restart) notes.push('no --target-restart: scenarios that restart a node are n/a');
  notes.push(
    'no pause points: the clients start together at one barrier, but nothing can hold them inside the service (contention’s hold at after-read is left out), so a race that hold forces in-process is left to the service’s own concurrency',
    'no audit: black box — duplicateKey (rows no key reaches) and auditMismatch are not computed; every other check is, from the answers and the final read',
  );
  if (!cases.some(isMeasured)) notes.push('no case ran against the target: the run does not pass');
  return {
    urls: [...settings.urls],
    setup: settings.setup.kind,
    restart: settings.restart ? 'command' : 'none',
    expect: settings.expect,
    ...(settings.caughtBy
      ? { caughtBy: Object.fromEntries(Object.entries(settings.caughtBy).map(([k, v]) => [k, [...v]])) }
      : {}),
    ran,
    notApplicable,
    notes,
    http: target.log.total(),
  };
}
