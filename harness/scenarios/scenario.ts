import type { ScenarioInput } from '../../fixtures/scenario-inputs.ts';
import type { PausePoint, StockLine } from '../../strategies/contract.ts';
import type { OutcomeCounts } from '../case-result.ts';
import type { ClientScript } from '../client-task.ts';
import type { Permutation } from '../interleaving/permutation.ts';
import type { Invariants } from '../invariants.ts';

/** The inputs of one case after CLI overrides are applied to the scenario's fixture. */
export interface ScenarioParams {
  clients: number;
  stock: StockLine[];
  user: string;
  ttlMs: number;
}

export interface CasePlan {
  clients: ClientScript[];
  /** Hold every client at this pause point until all have reached it (when the strategy passes it). */
  holdAt?: PausePoint;
}

interface ScenarioBase {
  id: string;
  /** One line on what the scenario drives, for `list` and the report. */
  summary: string;
  input: ScenarioInput;
  /** Pause points a strategy must pass for the scenario to apply to it. */
  requires?: readonly PausePoint[];
  /** What a safe strategy's outcomes must satisfy; returns the problems, empty when met. */
  check(params: ScenarioParams, outcomes: OutcomeCounts, invariants: Invariants): string[];
}

/** Many virtual clients on the worker-thread driver. */
export interface ClientsScenario extends ScenarioBase {
  kind: 'clients';
  plan(params: ScenarioParams): CasePlan;
}

/** A fixed interleaving of a few sessions on the interleaving engine (fixture inputs, no overrides). */
export interface InterleavingScenario extends ScenarioBase {
  kind: 'interleaving';
  permutation(params: ScenarioParams): Permutation;
}

export type Scenario = ClientsScenario | InterleavingScenario;

export function firstSku(params: ScenarioParams): StockLine {
  const line = params.stock[0];
  if (!line) throw new Error('a scenario needs at least one stock line');
  return line;
}

/** The outcome counts must be exactly these (absent keys mean 0). */
export function exactly(expected: OutcomeCounts, actual: OutcomeCounts): string[] {
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...keys]
    .filter((k) => (actual[k] ?? 0) !== (expected[k] ?? 0))
    .map((k) => `${k} ${actual[k] ?? 0}, expected ${expected[k] ?? 0}`);
}

/**
 * For runs where some holders roll back: every unit the committing clients could have taken is either
 * HELD or counted as a false sold-out, no request errored, and only aborting clients rolled back.
 */
export function everyUnitAccounted(
  counts: { stock: number; clients: number; aborting: number },
  outcomes: OutcomeCounts,
  invariants: Invariants,
): string[] {
  const problems: string[] = [];
  const held = outcomes.HELD ?? 0;
  const attainable = Math.min(counts.stock, counts.clients - counts.aborting);
  if (held + invariants.falseSoldOut !== attainable) {
    problems.push(
      `HELD ${held} + falseSoldOut ${invariants.falseSoldOut}, expected ${attainable} units accounted`,
    );
  }
  if ((outcomes.ROLLED_BACK ?? 0) > counts.aborting) {
    problems.push(`ROLLED_BACK ${outcomes.ROLLED_BACK}, at most ${counts.aborting} clients abort`);
  }
  const answered = Object.values(outcomes).reduce((a, b) => a + b, 0);
  if (answered !== counts.clients) problems.push(`${answered} answers for ${counts.clients} clients`);
  if (outcomes.ERROR) problems.push(`ERROR ${outcomes.ERROR}`);
  return problems;
}
