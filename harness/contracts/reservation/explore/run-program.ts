/**
 * One program of the explorer, run like any interleaving case: its spec parsed, fresh tables with its
 * stock, the steps on the interleaving engine in the schedule's order (blocking observed as always), then
 * the final read, the audit and every check — the history's `linearizable` among them (a batch of the
 * exhaustive scope runs round by round instead: drive-rounds.ts). The design is
 * judged as if it claimed to hold, whatever it claims: a program that fails is a finding.
 */
import type { StrategyRef } from '../../../../strategies/contract.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { ProgramRun as ContractProgramRun } from '../../../contract/contract-explore.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { InvalidPermutation } from '../../../interleaving/engine.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import { driveInterleaving } from '../case/drive-interleaving.ts';
import { onFreshTables } from '../case/fresh-tables.ts';
import { programScenario } from '../case/spec-file.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { hasFailover } from './drive-failover.ts';
import { driveInRounds } from './drive-rounds.ts';
import { onFailoverCluster } from './failover-cluster.ts';
import { type Program, specText } from './program.ts';

export type ProgramRun = ContractProgramRun<CaseResult>;

export async function runProgram(
  db: RunDatabase,
  ref: StrategyRef,
  program: Program,
  settings: CaseSettings,
  header: readonly string[] = [],
): Promise<ProgramRun> {
  const spec = specText(program, header);
  const scenario = programScenario('explore', spec, program.stock);
  const [permutation] = parseSpec(spec, 'explored.spec', [RESERVATION_VERBS]).permutations;
  if (!permutation) throw new Error('an explored program has no permutation');
  const caseSpec = {
    id: `explore/${ref.strategy.id}`,
    scenario,
    ref,
    params: { clients: program.sessions.length, stock: program.stock, user: 'u1', ttlMs: 60_000, nodes: 1 },
  };
  try {
    const { rounds } = program;
    const result = hasFailover(permutation)
      ? await onFailoverCluster(db, caseSpec, settings, permutation)
      : await onFreshTables(db, caseSpec, settings, (on) =>
          rounds ? driveInRounds(on, permutation, rounds) : driveInterleaving(on, permutation, true),
        );
    if (result.status === 'broken') return { kind: 'broken', result, spec };
    return { kind: result.status === 'fail' ? 'fail' : 'pass', result, spec };
  } catch (error: unknown) {
    if (error instanceof InvalidPermutation) return { kind: 'invalid', spec };
    throw error;
  }
}
