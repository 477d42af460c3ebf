/**
 * The steps that call the strategy instead of sending SQL: RESERVE, the lifecycle operations (CONFIRM,
 * RELEASE, EXPIRE, BACKDATE, DISABLE), each of which may stop at a pause point with its transaction open,
 * and RESUME, which lets a stopped operation commit or makes it roll back there.
 */
import type { PausePoint, SessionContext, Strategy } from '../../strategies/contract.ts';
import { RollbackAtPause } from '../driver/rollback-at-pause.ts';
import { Errors } from '../errors.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import type { Step, StepResult } from './permutation.ts';
import type { Session } from './session.ts';
import { failure, type Outcome, ok } from './step-outcome.ts';

export type StrategyStep = Exclude<Step, { sql: string }>;

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

/** The request a strategy step serves; a RESUME step serves its paused operation's. */
export function requestKeyOf(session: Session, step: Step): string | undefined {
  if ('sql' in step) return undefined;
  if ('reserve' in step) return step.reserve.requestKey;
  if ('operation' in step) return step.requestKey;
  return session.paused?.requestKey;
}

export function startStrategyStep(
  session: Session,
  step: StrategyStep,
  strategy: Strategy | undefined,
): Promise<Outcome> {
  if ('reserve' in step) {
    session.reserved = true;
    return startReserve(session, step, strategy);
  }
  if ('operation' in step) {
    session.reserved = true;
    return startLifecycle(session, step, strategy);
  }
  return resume(session, step);
}

/** A strategy call that may stop at `until`, transaction open, until a RESUME step of its session. */
function startPausable(
  session: Session,
  step: { name: string; until?: PausePoint },
  requestKey: string,
  call: (ctx: SessionContext) => Promise<StepResult>,
): Promise<Outcome> {
  const reached = deferred<Outcome>();
  const gate = deferred<'commit' | 'rollback'>();
  const finished = deferred<Outcome>();
  let pausedOnce = false;
  const ctx: SessionContext = {
    db: session.client,
    node: session.node,
    pause: async (point: PausePoint) => {
      if (point !== step.until || pausedOnce) return;
      pausedOnce = true;
      session.paused = { requestKey, release: gate.resolve, finished: finished.promise };
      reached.resolve(ok({ status: 'ok', paused: point }));
      if ((await gate.promise) === 'rollback') throw new RollbackAtPause(point);
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

function startLifecycle(
  session: Session,
  step: Extract<Step, { operation: unknown }>,
  strategy: Strategy | undefined,
): Promise<Outcome> {
  if (!strategy)
    throw Errors.badInput(`step ${step.name} calls ${step.operation}, but no strategy was given`);
  const key = step.requestKey ?? '';
  const missing = () => Errors.badInput(`step ${step.name}: ${strategy.id} has no ${step.operation}`);
  return startPausable(session, step, key, async (ctx): Promise<StepResult> => {
    switch (step.operation) {
      case 'confirm':
        if (!strategy.confirm) throw missing();
        return { status: 'ok', value: await strategy.confirm(ctx, key) };
      case 'release':
        if (!strategy.release) throw missing();
        return { status: 'ok', value: await strategy.release(ctx, key) };
      case 'expire':
        if (!strategy.expire) throw missing();
        return { status: 'ok', value: await strategy.expire(ctx) };
      case 'backdate':
        if (!strategy.backdate) throw missing();
        await strategy.backdate(ctx.db, [key]);
        return { status: 'ok' };
      case 'disable':
        if (!strategy.disable) throw missing();
        return { status: 'ok', value: await strategy.disable(ctx, key) };
    }
  });
}

function startReserve(
  session: Session,
  step: Extract<Step, { reserve: unknown }>,
  strategy: Strategy | undefined,
): Promise<Outcome> {
  if (!strategy) throw Errors.badInput(`step ${step.name} reserves, but no strategy was given`);
  return startPausable(session, step, step.reserve.requestKey, async (ctx) => {
    // An answer outside the contract (an unknown outcome) is an error naming it, as for any client.
    const checked = checkAnswer(await strategy.reserve(ctx, step.reserve));
    if ('problem' in checked) throw new Error(checked.problem);
    return { status: 'ok', answer: checked.answer };
  });
}

function resume(session: Session, step: Extract<Step, { resume: unknown }>): Promise<Outcome> {
  const paused = session.paused;
  // The operation ended before its pause point (it answered early, e.g. after waiting on a unique index):
  // there is nothing to resume, and the permutation goes on.
  if (!paused && session.reserved) return Promise.resolve(ok({ status: 'ok', endedBeforePause: true }));
  if (!paused)
    throw Errors.badInput(`step ${step.name}: session ${session.name} is not paused in an operation`);
  session.paused = undefined;
  paused.release(step.resume);
  return paused.finished;
}
