/**
 * The steps that call the design instead of sending SQL: a contract's step (RESERVE, the lifecycle, PAY,
 * STATUS, …), run by its contract's verbs (spec-verbs.ts), each of which may stop at a pause point with
 * its transaction open; and RESUME, which lets a stopped operation commit, makes it roll back there or
 * kills it. Each operation runs on its node (`ON i/n`, else 1/1) and tells the session when it retries
 * (`ctx.retried`), which the engine counts as progress.
 */
import type { PausePoint, SessionContext } from '../../strategies/contract.ts';
import { RollbackAtPause } from '../driver/rollback-at-pause.ts';
import { Errors } from '../errors.ts';
import { killPausedOperation } from './kill-step.ts';
import { SINGLE_NODE } from './nodes.ts';
import { type ContractStep, isContractStep, type Step, type StepResult } from './permutation.ts';
import type { Session } from './session.ts';
import type { StepEnvironment } from './spec-verbs.ts';
import { failure, type Outcome, ok } from './step-outcome.ts';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The request a step serves or reads; a RESUME step serves its paused operation's. */
export function requestKeyOf(session: Session, step: Step): string | undefined {
  if (isContractStep(step)) return step.requestKey;
  if ('resume' in step) return session.paused?.requestKey;
  return undefined;
}

/** A contract's step, by its contract's verbs on the design the run was given; or a RESUME. */
export function startCallStep(
  session: Session,
  step: ContractStep | Extract<Step, { resume: unknown }>,
  env: StepEnvironment,
): Promise<Outcome> {
  if ('resume' in step) return resume(session, step, env);
  const { contract } = env;
  if (!contract || contract.verbs.contract !== step.contract)
    throw Errors.badInput(
      `step ${step.name} calls ${step.verb.toLowerCase()}, but no design of the ${step.contract} contract was given`,
    );
  return contract.verbs.start(session, step, env);
}

/**
 * A call of the design that may stop at the step's `until`, transaction open, until a RESUME step of its
 * session; `call` gets the session context the design's operation is given.
 */
export function startPausable(
  session: Session,
  step: Pick<ContractStep, 'until' | 'node'>,
  requestKey: string,
  env: StepEnvironment,
  call: (ctx: SessionContext) => Promise<StepResult>,
): Promise<Outcome> {
  session.operated = true;
  const reached = deferred<Outcome>();
  const gate = deferred<'commit' | 'rollback'>();
  const finished = deferred<Outcome>();
  const node = step.node ?? SINGLE_NODE;
  let pausedOnce = false;
  const ctx: SessionContext = {
    db: session.client,
    node: env.nodes.identity(node),
    pausesAt: (point: PausePoint) => point === step.until && !pausedOnce,
    pause: async (point: PausePoint) => {
      if (point !== step.until || pausedOnce) return;
      pausedOnce = true;
      session.paused = { requestKey, point, node, release: gate.resolve, finished: finished.promise };
      reached.resolve(ok({ status: 'ok', paused: point }));
      if ((await gate.promise) === 'rollback') throw new RollbackAtPause(point);
    },
    retried: () => {
      session.retriesReported += 1;
    },
  };
  call(ctx).then(
    (result) => finished.resolve(ok(result)),
    (error: unknown) =>
      finished.resolve(
        error instanceof RollbackAtPause
          ? ok({ status: 'ok', rolledBack: true })
          : failure(session.lostWith() ?? error),
      ),
  );
  return Promise.race([reached.promise, finished.promise]);
}

/** A read of the design on the session's connection (no pause point): its answer is the record's value. */
export function startRead(
  session: Session,
  read: (db: Session['client']) => Promise<boolean | number | string | undefined>,
): Promise<Outcome> {
  return read(session.client).then(
    (value) => ok({ status: 'ok', ...(value === undefined ? {} : { value }) }),
    (error: unknown) => failure(session.lostWith() ?? error),
  );
}

function resume(
  session: Session,
  step: Extract<Step, { resume: unknown }>,
  env: StepEnvironment,
): Promise<Outcome> {
  const paused = session.paused;
  // The operation ended before its pause point (it answered early, e.g. after waiting on a unique index):
  // there is nothing to resume, and the permutation goes on.
  if (!paused && session.operated) return Promise.resolve(ok({ status: 'ok', endedBeforePause: true }));
  if (!paused)
    throw Errors.badInput(`step ${step.name}: session ${session.name} is not paused in an operation`);
  session.paused = undefined;
  if (step.resume === 'kill') return killPausedOperation(session, paused, env);
  paused.release(step.resume);
  return paused.finished;
}
