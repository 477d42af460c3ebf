/**
 * `run --target`: a contract's suite driven against a user's service that speaks the contract's HTTP API —
 * a black box, judged by its answers and its own API read back, with no database of the run's own. The
 * command line settles the options (harness/cli/black-box-options.ts); the contract probes the service and
 * runs its scenarios against it.
 */
import type { Expectation } from '../../strategies/contract.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';
import type { ScenarioOverrides } from './case-settings.ts';

/** What the command line settled before the service is asked anything. */
export interface TargetGiven {
  /** Base URLs, one per node, without a trailing slash. */
  urls: readonly string[];
  /** hold, or violate: a known-unsafe service that `caughtBy`'s checks must catch. */
  expect: Expectation;
  /** Per scenario, the checks that must catch a known-unsafe service. */
  caughtBy?: Readonly<Record<string, readonly string[]>>;
  /** `--target-setup`: the user's command that loads a case's stock. */
  setupCommand?: string;
  /** `--target-restart`: the user's command that restarts a node. */
  restart?: string;
  /** The run's --timeout-ms: the longest one exchange, a hook or a node's return may take. */
  timeoutMs: number;
}

/** How the selected scenarios run against the service. */
export interface TargetCases<C extends CaseResultBase> {
  overrides: ScenarioOverrides;
  repeat: number;
  timeoutMs: number;
  onCase?: (result: C) => void;
}

/** A service that answered the probe as the API says. */
export interface ConnectedTarget<R, S, C extends CaseResultBase> {
  /** The design the report names for the service (id `target`), as the contract holds a loaded design. */
  readonly design: R;
  /** Every scenario `repeat` times against the service, one after the other (they share its one state). */
  run(scenarios: readonly S[], cases: TargetCases<C>): Promise<C[]>;
  /** The report's `target` section: the nodes, what ran, what could not and why, every exchange. */
  section(cases: readonly C[]): Record<string, unknown>;
}

/** A contract's `run --target`: the checks `--caught-by` may name, and the probe that connects a service. */
export interface ContractTarget<R, S, C extends CaseResultBase> {
  /** The checks a `--caught-by scenario:check` pair may name. */
  readonly checks: readonly string[];
  /**
   * Asks every node whether it speaks the contract's API, and how a case can load its stock: one line
   * (exit 2) when a node cannot be reached or does not answer as the API says.
   */
  connect(given: TargetGiven): Promise<ConnectedTarget<R, S, C>>;
}
