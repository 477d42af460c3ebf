/**
 * Driving an interleaving: one permutation of its sessions' steps on the interleaving engine, and what
 * its steps amount to.
 */
import type { ReserveRequest } from '../../strategies/contract.ts';
import type { RequestResult } from '../driver/client-task.ts';
import { runPermutation } from '../interleaving/engine.ts';
import type { Permutation, Step, StepRecord } from '../interleaving/permutation.ts';
import type { LifecycleFacts } from '../verdict/invariants.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';
import { PhaseRecorder } from './phases.ts';
import type { Observations } from './scenario.ts';

function requestsOf(permutation: Permutation): ReserveRequest[] {
  return permutation.steps.flatMap((s) => ('reserve' in s ? [s.reserve] : []));
}

interface InterleavingFacts {
  answers: RequestResult[];
  lifecycle: LifecycleFacts;
  exercised: string[];
  /** What the lifecycle steps returned, summed: rows confirmed and released, units expiry gave back. */
  observed: Observations;
  phases: PhaseRecorder;
}

/**
 * What an interleaving's steps amount to: the final answer of each reserve (a paused step is not an
 * answer; its RESUME step carries it), the keys released and whether expiry ran.
 */
function interleavingFacts(steps: readonly StepRecord[], permutation: Permutation): InterleavingFacts {
  const byName = new Map(permutation.steps.map((s) => [s.name, s]));
  const pausable = new Map<string, Step>();
  const answers: RequestResult[] = [];
  const released = new Set<string>();
  const disabled = new Set<string>();
  let expireRan = false;
  const exercised = new Set<string>();
  const observed: Record<string, number> = {};
  const phases = new PhaseRecorder();
  const add = (name: string, n: number) => {
    observed[name] = (observed[name] ?? 0) + n;
  };
  const answer = (a: RequestResult) => {
    answers.push(a);
    phases.answered(answers.length - 1, answers.length);
  };
  for (const record of steps) {
    const defined = byName.get(record.step);
    if (!defined || 'sql' in defined) continue;
    const op = 'resume' in defined ? pausable.get(defined.session) : defined;
    if (!('resume' in defined)) pausable.set(defined.session, defined);
    if (!op || 'sql' in op || 'resume' in op) continue;
    const { result } = record;
    if (result.status === 'ok' && result.paused) continue;
    if ('operation' in op) {
      exercised.add(op.operation);
      const value = result.status === 'ok' ? result.value : undefined;
      phases.step(
        op.operation === 'disable' ? `disable ${op.requestKey ?? ''}`.trim() : op.operation,
        typeof value === 'number'
          ? { n: value, unit: 'units back' }
          : typeof value === 'boolean'
            ? { n: value ? 1 : 0, unit: 'moved' }
            : undefined,
      );
      if (op.operation === 'expire') {
        expireRan = true;
        add('unitsReturned', typeof value === 'number' ? value : 0);
      }
      if (op.operation === 'confirm') add('confirmed', value === true ? 1 : 0);
      if (op.operation === 'disable') {
        add('disabled', value === true ? 1 : 0);
        if (op.requestKey && value === true) disabled.add(op.requestKey);
      }
      if (op.operation === 'release') {
        add('released', value === true ? 1 : 0);
        if (op.requestKey && value === true) released.add(op.requestKey);
      }
      continue;
    }
    exercised.add('reserve');
    const request = op.reserve;
    const base = { requestKey: request.requestKey, user: request.user, sku: request.sku, latencyMs: 0 };
    if (result.status === 'error') {
      answer({
        ...base,
        outcome: 'ERROR',
        error: result.error,
        ...(result.sqlstate ? { sqlstate: result.sqlstate } : {}),
      });
    } else if (result.rolledBack) answer({ ...base, outcome: 'ROLLED_BACK' });
    else if (result.answer) answer({ ...base, ...result.answer });
  }
  return {
    answers,
    lifecycle: { released, expireRan, disabled },
    exercised: [...exercised],
    observed,
    phases,
  };
}

/** `rejectInvalid`: an order other than the listed one is invalid where a session's next step waits on idle ones. */
export async function driveInterleaving(
  on: CaseOnSchema,
  permutation: Permutation,
  rejectInvalid: boolean,
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const steps = await runPermutation(permutation, {
    connectionString: db.connectionString,
    schema,
    strategy: spec.ref.strategy,
    timeoutMs: settings.timeoutMs,
    rejectInvalid,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
  });
  const facts = interleavingFacts(steps, permutation);
  const untils = permutation.steps.flatMap((s) =>
    'until' in s && s.until ? [`${'operation' in s ? s.operation : 'reserve'}:${s.until}`] : [],
  );
  return {
    sent: requestsOf(permutation),
    answers: facts.answers,
    lifecycle: facts.lifecycle,
    exercised: facts.exercised,
    pausePoints: [...new Set(untils)],
    observations: facts.observed,
    steps,
    phases: facts.phases,
  };
}
