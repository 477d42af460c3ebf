/**
 * What one case is: a scenario against a strategy with its inputs, the settings of the run it belongs to,
 * and who the case is in its result.
 */

import type { IsolationLevel, StrategyRef } from '../../../../strategies/contract.ts';
import type { CaseDeadline } from '../../../case/case-deadline.ts';
import type { ClusterSource } from '../../../cluster/cluster-source.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { ReservationRecorder } from '../history/reservation-operations.ts';
import type { BlackBox } from './black-box.ts';
import type { Scenario, ScenarioParams } from './scenario.ts';

export interface CaseSpec {
  id: string;
  scenario: Scenario;
  ref: StrategyRef;
  params: ScenarioParams;
  /** The level every session of the case runs at (`run --isolation`); the server's default when absent. */
  isolation?: IsolationLevel;
  /**
   * The strategy is a black box driven from outside (`run --target`): no tables, no audit, the final read
   * over its API, and scenarios that need more than the API are n/a.
   */
  blackBox?: BlackBox;
  /** Where a cluster scenario's case gets its cluster (`run --cluster`; the embedded one by default). */
  cluster?: ClusterSource;
}

/** A case on a schema of its own in the run database: what every driver works on. */
export interface CaseOnSchema {
  spec: CaseSpec;
  settings: CaseSettings;
  db: RunDatabase;
  schema: string;
  /** Every operation the case drives, with its times and answer (the `linearizable` check's input). */
  history: ReservationRecorder;
  /** The case's deadline; its drives pause it while they wait for the worker threads. */
  deadline: CaseDeadline;
  /**
   * The driver the case's clients ran on (worker threads, or a black box's), which the sell-what-remains
   * probe sells through; absent where the case ran its operations on this thread (an interleaving).
   */
  pool?: ClientDriver;
}

/**
 * Who the case is; a strategy run at an isolation level it does not claim is measured, not judged (see
 * Strategy.isolation); in a control scenario (`everyDesignCaughtBy`) every design is a control.
 */
export function identityOf(spec: CaseSpec) {
  const { strategy } = spec.ref;
  const claimed = strategy.isolation ?? ['read-committed'];
  const { everyDesignHolds, everyDesignCaughtBy } = spec.scenario;
  const claim = everyDesignHolds ? 'hold' : everyDesignCaughtBy ? ('violate' as const) : strategy.expect;
  const expect = spec.isolation && !claimed.includes(spec.isolation) ? ('measure' as const) : claim;
  return {
    id: spec.id,
    scenario: spec.scenario.id,
    strategy: strategy.id,
    expect,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
  };
}
