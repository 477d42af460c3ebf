/**
 * Driving an interleaving: one permutation of its sessions' steps on the interleaving engine, each step
 * then recorded in the order the engine sent it.
 */
import { runPermutation } from '../interleaving/engine.ts';
import { Nodes } from '../interleaving/nodes.ts';
import type { Permutation } from '../interleaving/permutation.ts';
import { CaseRecord, type OperationStep } from './case-record.ts';
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
    strategy: spec.ref.strategy,
    timeoutMs: settings.timeoutMs,
    rejectInvalid,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
    clockWait: (ms) => on.history.distinguishableWait(ms),
  });
  const record = new CaseRecord(on.history);
  const byName = new Map(permutation.steps.map((s) => [s.name, s]));
  /** Each session's last operation: the one its RESUME step completes. */
  const pausable = new Map<string, OperationStep>();
  for (const step of steps) {
    const defined = byName.get(step.step);
    // A PAY step is the payment contract's, judged by its own case (payment/); none reaches a reservation case.
    if (!defined || 'sql' in defined || 'pay' in defined) continue;
    if ('resume' in defined) {
      const paused = pausable.get(defined.session);
      if (paused) record.interleavingStep(step, paused, false);
      continue;
    }
    if (!('reserve' in defined || 'operation' in defined)) {
      record.interleavingEvent(step, defined);
      continue;
    }
    pausable.set(defined.session, defined);
    record.interleavingStep(step, defined, true);
  }
  return record.driven(steps, nodes.lastIdentities(permutation.steps));
}
