/**
 * Driving an interleaving: one permutation of its sessions' steps on the interleaving engine, each step
 * then recorded in the order the engine sent it.
 */
import { runPermutation } from '../../../interleaving/engine.ts';
import { Nodes } from '../../../interleaving/nodes.ts';
import type { Permutation, StepRecord } from '../../../interleaving/permutation.ts';
import { reservationStep } from '../spec/reservation-steps.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';
import { type CallStep, CaseRecord } from './case-record.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';

/** `rejectInvalid`: an order other than the listed one is invalid where a session's next step waits on idle ones. */
export async function driveInterleaving(
  on: CaseOnSchema,
  permutation: Permutation,
  rejectInvalid: boolean,
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const nodes = new Nodes(schema);
  const steps = await runPermutation(permutation, {
    nodes,
    connectionString: db.connectionString,
    schema,
    contract: { verbs: RESERVATION_VERBS, design: spec.ref.strategy },
    timeoutMs: settings.timeoutMs,
    rejectInvalid,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
    clockWait: (ms) => on.history.distinguishableWait(ms),
  });
  return recordedSteps(on, permutation, steps, nodes);
}

/** The steps of a permutation as they ran, recorded in the order they were sent (by the engine, or another driver). */
export function recordedSteps(
  on: CaseOnSchema,
  permutation: Permutation,
  steps: StepRecord[],
  nodes: Nodes,
): Driven {
  const record = new CaseRecord(on.history);
  const byName = new Map(permutation.steps.map((s) => [s.name, s]));
  /** Each session's last operation: the one its RESUME step completes. */
  const pausable = new Map<string, CallStep>();
  for (const step of steps) {
    const defined = byName.get(step.step);
    if (!defined || 'sql' in defined) continue;
    if ('resume' in defined) {
      const paused = pausable.get(defined.session);
      if (paused) record.interleavingStep(step, paused, false);
      continue;
    }
    if ('waitMs' in defined || 'restart' in defined) {
      record.interleavingEvent(step, defined);
      continue;
    }
    // A step of another contract (PAY) is judged by that contract's case; none reaches a reservation case.
    const own = reservationStep(defined);
    if (!own) continue;
    if ('read' in own) {
      record.interleavingEvent(step, own);
      continue;
    }
    pausable.set(defined.session, own);
    record.interleavingStep(step, own, true);
  }
  return record.driven(steps, nodes.lastIdentities(permutation.steps));
}
