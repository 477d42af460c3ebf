/**
 * One program of the explorer, run like any interleaving case: its spec parsed, fresh tables with its
 * stock, the steps on the interleaving engine in the schedule's order (blocking observed as always), then
 * the final read, the audit and every check — the history's `linearizable` among them. The design is
 * judged as if it claimed to hold, whatever it claims: a program that fails is a finding.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import type { RunDatabase } from '../database/database.ts';
import { InvalidPermutation } from '../interleaving/engine.ts';
import { parseSpec } from '../interleaving/spec-parser.ts';
import type { CaseSettings } from '../scenario/case-spec.ts';
import { driveInterleaving } from '../scenario/drive-interleaving.ts';
import { onFreshTables } from '../scenario/fresh-tables.ts';
import type { InterleavingScenario } from '../scenario/scenario.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { type Program, specText } from './program.ts';
import { specNeeds } from './spec-needs.ts';

export type ProgramRun =
  | { kind: 'pass' | 'fail'; result: CaseResult; spec: string }
  /** The schedule asked a session for a step while its blocked one waited on idle sessions. */
  | { kind: 'invalid'; spec: string }
  /** The program could not be run to its end (a step stuck, setup failed): reported, not a finding. */
  | { kind: 'broken'; result: CaseResult; spec: string };

/**
 * The scenario a program is: its spec, its stock, nothing expected but what every case must hold; the
 * optional operations and pause points its steps use, so a design without one is not covered by it.
 */
export function programScenario(id: string, spec: string, stock: Program['stock']): InterleavingScenario {
  const steps = parseSpec(spec, `${id}.spec`).sessions.flatMap((s) => s.steps.map((x) => x.step));
  const { operations, requires } = specNeeds(steps);
  return {
    id,
    kind: 'interleaving',
    summary: 'a program the explorer generated',
    input: { clients: 1, stock, user: 'u1', ttlMs: 60_000 },
    spec,
    everyDesignHolds: true,
    ...(operations.length > 0 ? { operations } : {}),
    ...(requires.length > 0 ? { requires } : {}),
    expect: {},
  };
}

export async function runProgram(
  db: RunDatabase,
  ref: StrategyRef,
  program: Program,
  settings: CaseSettings,
  header: readonly string[] = [],
): Promise<ProgramRun> {
  const spec = specText(program, header);
  const scenario = programScenario('explore', spec, program.stock);
  const [permutation] = parseSpec(spec, 'explored.spec').permutations;
  if (!permutation) throw new Error('an explored program has no permutation');
  const caseSpec = {
    id: `explore/${ref.strategy.id}`,
    scenario,
    ref,
    params: { clients: program.sessions.length, stock: program.stock, user: 'u1', ttlMs: 60_000, nodes: 1 },
  };
  try {
    const result = await onFreshTables(db, caseSpec, settings, (on) =>
      driveInterleaving(on, permutation, true),
    );
    if (result.status === 'broken') return { kind: 'broken', result, spec };
    return { kind: result.status === 'fail' ? 'fail' : 'pass', result, spec };
  } catch (error: unknown) {
    if (error instanceof InvalidPermutation) return { kind: 'invalid', spec };
    throw error;
  }
}
