/**
 * The reservation contract's side of the explorer (contract-explore.ts): the sweep (sweep.ts, in batches:
 * sweep-batches.ts), the exhaustive scope (scope-programs.ts over growth.ts and names.ts), random programs
 * (program-arbitrary.ts), each run as an interleaving case (run-program.ts) and written as a spec of
 * RESERVE, CONFIRM, … steps (program.ts); a finding replayed from its file (replay.ts).
 */
import type { StrategyRef } from '../../../../strategies/contract.ts';
import { refusedNeed } from '../../../case/applicability.ts';
import { brokenCase, naCase } from '../../../case/unjudged-case.ts';
import type { ContractExplore, ExploreIdentity, ExploreReach } from '../../../contract/contract-explore.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { belowMinimum } from '../../../database/postgres-minimum.ts';
import { caseNeeds } from '../case/capability-needs.ts';
import { SCENARIOS } from '../case/index.ts';
import type { BrokenCase, CaseResult, SkippedCase } from '../verdict/case-result.ts';
import { failoverPrograms } from './failover-programs.ts';
import { outOfReach } from './out-of-reach.ts';
import { type Program, specText } from './program.ts';
import { MAX_SESSIONS, programArbitrary } from './program-arbitrary.ts';
import { replaySpec } from './replay.ts';
import { runProgram } from './run-program.ts';
import { reservationScope, SCOPE_SESSIONS } from './scope-programs.ts';
import { sweepLanguage } from './sweep-batches.ts';

/**
 * A server older than the design needs fails every program on the SQL it lacks: n/a, as its cases are.
 * Its programs are interleavings: they need the lock view, as interleaving cases do.
 */
function notExplored(db: RunDatabase, ref: StrategyRef, reach: ExploreReach): string | undefined {
  return (
    outOfReach(ref.strategy, SCENARIOS, reach.failover) ??
    belowMinimum(ref.strategy, db.serverVersionNum) ??
    refusedNeed(caseNeeds(ref.strategy, { kind: 'interleaving' }, undefined), db.capabilities)
  );
}

function skippedCase(identity: ExploreIdentity, reason: string): SkippedCase {
  return { ...naCase(identity, reason), invariants: null, coverage: { missing: [] } };
}

function brokenExploration(identity: ExploreIdentity, problem: string): BrokenCase {
  return { ...brokenCase(identity, problem), invariants: null };
}

export const RESERVATION_EXPLORE: ContractExplore<StrategyRef, CaseResult, Program> = {
  connections: Math.max(MAX_SESSIONS, SCOPE_SESSIONS),
  notExplored,
  sweep: (ref) => sweepLanguage(ref.strategy),
  scope: (ref) => reservationScope(ref.strategy),
  failover: (ref) => failoverPrograms(ref.strategy),
  random: (ref) => programArbitrary(ref.strategy),
  specText,
  run: runProgram,
  replay: replaySpec,
  skippedCase,
  brokenCase: brokenExploration,
};
