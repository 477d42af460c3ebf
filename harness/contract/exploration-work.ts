/**
 * A contract's explorations as work of the suite (`explore/<id>`, one per design, after its scenarios'
 * cases in the report): a safe design's first, the longest work of a run (every program is run, where a
 * control stops at its first finding), each beside other work with its program's sessions and the harness's.
 */
import type { Expectation } from '../../strategies/contract.ts';
import { HARNESS_CONNECTIONS } from '../database/preflight.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import { type CaseWork, type ScenarioBase, type Selection, START_RANK } from './contract.ts';

export function explorationWork<R, S extends ScenarioBase, C extends CaseResultBase>(
  selection: Selection<R, S, C>,
  expectOf: (ref: R) => Expectation,
): CaseWork<C>[] {
  const { explore } = selection;
  if (!explore) return [];
  return selection.designs.map((ref) => ({
    placement: { alone: undefined, connections: explore.connections + HARNESS_CONNECTIONS },
    rank: expectOf(ref) === 'hold' ? START_RANK.exploreHold : START_RANK.exploreViolate,
    run: (db, caseSettings) => explore.run(db, ref, caseSettings),
  }));
}
