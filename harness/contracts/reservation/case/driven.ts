/**
 * What one drive of a scenario produced, whatever its kind (clients, a script, an interleaving): what the
 * measuring and judging of the case (measure.ts) starts from.
 */
import type { NodeIdentity, ReserveRequest } from '../../../../strategies/contract.ts';
import type { StepRecord } from '../../../interleaving/permutation.ts';
import type { RequestResult } from '../driver/client-task.ts';
import type { LifecycleFacts } from '../verdict/invariants.ts';
import type { PhaseRecorder } from './phases.ts';
import type { Observations } from './scenario.ts';

export interface Driven {
  /** Every request the case sent, answered or not (a crashed child's request never is). */
  sent: readonly ReserveRequest[];
  answers: RequestResult[];
  lifecycle: LifecycleFacts;
  /** Contract operations the case called, and the pause points it held or killed them at. */
  exercised: string[];
  pausePoints: string[];
  observations: Observations;
  /** An interleaving's steps as the engine ran them. */
  steps?: StepRecord[];
  /** Which answers came in which batch, and the lifecycle steps between them (per-phase outcomes). */
  phases: PhaseRecorder;
  /** Operations of an interleaving other than reserves that failed with an error (a reserve's is its answer). */
  failures: readonly { sqlstate?: string | undefined; error: string }[];
  /**
   * The nodes the case named, each in its last incarnation (a restarted node's latest): where the
   * sell-what-remains probe sells. Absent or partial, the others are the scenario's nodes as first started.
   */
  nodes?: readonly NodeIdentity[];
}
