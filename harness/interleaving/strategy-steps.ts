/**
 * The steps that call the design instead of sending SQL: RESERVE, the lifecycle operations (CONFIRM,
 * RELEASE, EXPIRE, BACKDATE, DISABLE) and the payment design's PAY, each of which may stop at a pause
 * point with its transaction open,
 * RESUME, which lets a stopped operation commit, makes it roll back there or kills it, and the reads
 * STATUS and REMAINING. Each operation runs on its node (`ON i/n`, else 1/1) and tells the session when
 * it retries (`ctx.retried`), which the engine counts as progress.
 */
import type { PausePoint, SessionContext, Strategy } from '../../strategies/contract.ts';
import { RollbackAtPause } from '../driver/rollback-at-pause.ts';
import { Errors } from '../errors.ts';
import { checkPaymentAnswer } from '../registry/payment-module.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import { killPausedOperation } from './kill-step.ts';
import { type Nodes, SINGLE_NODE } from './nodes.ts';
import type { NodeRef, Step, StepResult, StrategyStep } from './permutation.ts';
import type { Session } from './session.ts';
import type { StepEnvironment } from './step-environment.ts';
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
  if ('reserve' in step) return step.reserve.requestKey;
  if ('pay' in step) return step.pay.idempotencyKey;
  if ('operation' in step || ('read' in step && step.read === 'status')) return step.requestKey;
  if ('resume' in step) return session.paused?.requestKey;
  return undefined;
}

export function startStrategyStep(
  session: Session,
  step: StrategyStep,
  env: StepEnvironment,
): Promise<Outcome> {
  if ('reserve' in step) {
    session.reserved = true;
    return startReserve(session, step, env);
  }
  if ('operation' in step) {
    session.reserved = true;
    return startLifecycle(session, step, env);
  }
  if ('pay' in step) {
    session.reserved = true;
    return startPay(session, step, env);
  }
  if ('read' in step) return read(session, step, env.strategy);
  return resume(session, step, env);
}

/** A strategy call that may stop at `until`, transaction open, until a RESUME step of its session. */
function startPausable(
  session: Session,
  step: { name: string; until?: PausePoint; on?: NodeRef },
  requestKey: string,
  nodes: Nodes,
  call: (ctx: SessionContext) => Promise<StepResult>,
): Promise<Outcome> {
  const reached = deferred<Outcome>();
  const gate = deferred<'commit' | 'rollback'>();
  const finished = deferred<Outcome>();
  const node = step.on ?? SINGLE_NODE;
  let pausedOnce = false;
  const ctx: SessionContext = {
    db: session.client,
    node: nodes.identity(node),
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

function startLifecycle(
  session: Session,
  step: Extract<Step, { operation: unknown }>,
  { strategy, nodes }: StepEnvironment,
): Promise<Outcome> {
  if (!strategy)
    throw Errors.badInput(`step ${step.name} calls ${step.operation}, but no strategy was given`);
  const key = step.requestKey ?? '';
  const missing = () => Errors.badInput(`step ${step.name}: ${strategy.id} has no ${step.operation}`);
  return startPausable(session, step, key, nodes, async (ctx): Promise<StepResult> => {
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
  { strategy, nodes }: StepEnvironment,
): Promise<Outcome> {
  if (!strategy) throw Errors.badInput(`step ${step.name} reserves, but no strategy was given`);
  return startPausable(session, step, step.reserve.requestKey, nodes, async (ctx) => {
    // An answer outside the contract (an unknown outcome) is an error naming it, as for any client.
    const checked = checkAnswer(await strategy.reserve(ctx, step.reserve));
    if ('problem' in checked) throw new Error(checked.problem);
    return { status: 'ok', answer: checked.answer };
  });
}

/** PAY: the payment design's pay on the session's connection; its checked answer is the step's result. */
function startPay(
  session: Session,
  step: Extract<Step, { pay: unknown }>,
  { payment, nodes }: StepEnvironment,
): Promise<Outcome> {
  if (!payment) throw Errors.badInput(`step ${step.name} pays, but no payment design was given`);
  return startPausable(session, step, step.pay.idempotencyKey, nodes, async (ctx) => {
    // An answer outside the contract (an unknown outcome) is an error naming it, as for any worker.
    const checked = checkPaymentAnswer(await payment.pay(ctx, step.pay));
    if ('problem' in checked) throw new Error(checked.problem);
    return { status: 'ok', payment: checked.answer };
  });
}

/** STATUS key / REMAINING sku, on the session's connection: the answer is the record's value. */
function read(
  session: Session,
  step: Extract<Step, { read: unknown }>,
  strategy: Strategy | undefined,
): Promise<Outcome> {
  if (!strategy) throw Errors.badInput(`step ${step.name} reads ${step.read}, but no strategy was given`);
  const answer =
    step.read === 'status'
      ? strategy.status(session.client, step.requestKey)
      : strategy.remaining(session.client, step.sku);
  return answer.then(
    (value) => ok({ status: 'ok', value }),
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
  if (!paused && session.reserved) return Promise.resolve(ok({ status: 'ok', endedBeforePause: true }));
  if (!paused)
    throw Errors.badInput(`step ${step.name}: session ${session.name} is not paused in an operation`);
  session.paused = undefined;
  if (step.resume === 'kill') return killPausedOperation(session, paused, env);
  paused.release(step.resume);
  return paused.finished;
}
