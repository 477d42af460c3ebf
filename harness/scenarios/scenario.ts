import type { ScenarioInput } from '../../fixtures/scenario-inputs.ts';
import type { Outcome, PausePoint, StockLine } from '../../strategies/contract.ts';
import type { ClientScript } from '../client-task.ts';

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

export interface Scenario {
  id: string;
  /** One line on what the scenario drives, for `list` and the report. */
  summary: string;
  input: ScenarioInput;
  plan(params: ScenarioParams): CasePlan;
  /** The exact outcome counts a safe strategy must return for these inputs. */
  expectedOutcomes(params: ScenarioParams): Partial<Record<Outcome, number>>;
}

export function firstSku(params: ScenarioParams): StockLine {
  const line = params.stock[0];
  if (!line) throw new Error('a scenario needs at least one stock line');
  return line;
}
