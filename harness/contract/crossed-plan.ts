/**
 * The plan of a contract whose cases share nothing but the run database (no pool of threads): every
 * scenario against every design, `repeat` times each (`#n` after the case's id), then each design explored.
 * The contract says where a scenario's cases run and when they start, and runs one case.
 */
import type { Expectation } from '../../strategies/contract.ts';
import type { RunDatabase } from '../database/database.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import type { CaseSettings, RunSettings } from './case-settings.ts';
import type { CaseWork, ContractRun, ScenarioBase, Selection } from './contract.ts';
import { explorationWork } from './exploration-work.ts';

export interface CrossedCases<R, S, C> {
  /** Where the scenario's cases run, and their START_RANK. */
  placed(scenario: S): Pick<CaseWork<CaseResultBase>, 'placement' | 'rank'>;
  /** One case; `repetition`: `#n` for the n-th of `run --repeat`'s runs, else empty. */
  run(db: RunDatabase, ref: R, scenario: S, settings: CaseSettings, repetition: string): Promise<C>;
}

export function crossedPlan<
  R extends { design: { expect: Expectation } },
  S extends ScenarioBase,
  C extends CaseResultBase,
>(selection: Selection<R, S, C>, settings: RunSettings, cases: CrossedCases<R, S, C>): ContractRun<C> {
  const work: CaseWork<C>[] = [];
  for (const scenario of selection.scenarios) {
    const placed = cases.placed(scenario);
    for (const ref of selection.designs) {
      for (let n = 1; n <= settings.repeat; n++) {
        const repetition = settings.repeat > 1 ? `#${n}` : '';
        work.push({
          ...placed,
          run: (db, caseSettings) => cases.run(db, ref, scenario, caseSettings, repetition),
        });
      }
    }
  }
  return {
    work: [...work, ...explorationWork(selection, (ref) => ref.design.expect)],
    close: async () => undefined,
  };
}
