/**
 * The reservation contract's verbs in a spec (spec-verbs.ts), parsed here and run on a session:
 *
 *   RESERVE <key> <user> <sku> [TTL <ms>] [UNTIL <pause point>] [ON <i>/<n>]
 *   CONFIRM <key> | RELEASE <key> | EXPIRE | DISABLE <sku>   [UNTIL <pause point>] [ON <i>/<n>]
 *   BACKDATE <key>
 *   STATUS <key> | REMAINING <sku>
 *
 * RESERVE takes a request key, a user and a sku, then optionally `TTL <ms>` (default 60000) and
 * `UNTIL <pause point>`. CONFIRM, RELEASE and EXPIRE call the strategy's lifecycle operations (and, with
 * UNTIL, stop at that pause point like a reserve); BACKDATE moves a reservation's expiry into the past
 * through the strategy's hook, or, on a design without it, lets the database clock pass the TTL the key
 * was reserved with (at most LONGEST_WAITED_TTL_MS). STATUS and REMAINING call `strategy.status` /
 * `strategy.remaining` on the session's connection, and the answer is the step's value.
 */
import { PAUSE_POINTS, type PausePoint, type Strategy } from '../../../../strategies/contract.ts';
import { Errors } from '../../../errors.ts';
import { startPausable, startRead } from '../../../interleaving/call-steps.ts';
import { SINGLE_NODE } from '../../../interleaving/nodes.ts';
import type { ContractStep, StepResult } from '../../../interleaving/permutation.ts';
import type { Session } from '../../../interleaving/session.ts';
import type { Fail } from '../../../interleaving/spec-tokens.ts';
import type { SpecVerbs, StepEnvironment } from '../../../interleaving/spec-verbs.ts';
import {
  failIfOn,
  onlyArgument,
  pausePointOf,
  type StepWords,
  wholeMs,
} from '../../../interleaving/spec-words.ts';
import type { Outcome } from '../../../interleaving/step-outcome.ts';
import { checkAnswer } from '../../../registry/strategy-module.ts';
import {
  LIFECYCLE_STEPS,
  type LifecycleStep,
  type OperationStep,
  RESERVATION_CONTRACT,
  type ReadStep,
  type ReserveStep,
  reservationStep,
} from './reservation-steps.ts';

export const DEFAULT_TTL_MS = 60_000;

/** The longest TTL a BACKDATE on a design without the hook waits out. */
const LONGEST_WAITED_TTL_MS = 30_000;

/** Verbs whose operation gets a session context, and with it a node. */
const ON_A_NODE = ['RESERVE', 'CONFIRM', 'RELEASE', 'EXPIRE', 'DISABLE'];

const base = (body: StepWords, verb: string) => ({
  contract: RESERVATION_CONTRACT,
  verb,
  name: body.name,
  session: body.session,
  ...(body.on ? { on: body.on } : {}),
  ...(ON_A_NODE.includes(verb) ? { node: body.on ?? SINGLE_NODE } : {}),
});

/** CONFIRM key / RELEASE key / EXPIRE / DISABLE sku, with an optional UNTIL; BACKDATE key. */
function lifecycleStep(operation: LifecycleStep, body: StepWords): OperationStep {
  const { words, end } = body;
  const fail: Fail = body.fail;
  const takesKey = operation !== 'expire';
  const [verb, ...rest] = words;
  const requestKey = takesKey ? rest.shift() : undefined;
  if (takesKey && !requestKey) fail(end, `${verb?.text} needs a request key`);
  let until: PausePoint | undefined;
  const [option, value, extra] = rest;
  if (option) {
    failIfOn(option, fail);
    if (option.text.toUpperCase() !== 'UNTIL' || operation === 'backdate')
      fail(option.at, `unexpected "${option.text}" in ${verb?.text}`);
    if (!value) fail(option.at, 'UNTIL needs a pause point');
    until = pausePointOf(value, PAUSE_POINTS, fail);
    if (extra) {
      failIfOn(extra, fail);
      fail(extra.at, `unexpected "${extra.text}" after UNTIL ${value.text}`);
    }
  }
  return {
    ...base(body, operation.toUpperCase()),
    operation,
    ...(requestKey ? { requestKey: requestKey.text } : {}),
    ...(until ? { until } : {}),
  };
}

/** RESERVE key user sku, then optionally TTL <ms> and UNTIL <pause point> (ON is taken off already). */
function reserveStep(body: StepWords): ReserveStep {
  const { words, end } = body;
  const fail: Fail = body.fail;
  const [, requestKey, user, sku, ...options] = words;
  if (!requestKey || !user || !sku)
    fail(words.at(-1)?.at ?? end, 'RESERVE needs a request key, a user and a sku');
  let ttlMs: number | undefined;
  let until: PausePoint | undefined;
  for (let o = 0; o < options.length; o += 2) {
    const option = options[o];
    const value = options[o + 1];
    if (!option) break;
    failIfOn(option, fail);
    const keyword = option.text.toUpperCase();
    if (keyword !== 'TTL' && keyword !== 'UNTIL')
      fail(
        option.at,
        `unexpected "${option.text}" in RESERVE; expected TTL <ms>, UNTIL <pause point> or ON <i>/<n>`,
      );
    if ((keyword === 'TTL' ? ttlMs : until) !== undefined) fail(option.at, `${keyword} is given twice`);
    if (!value) fail(option.at, `${keyword} needs a value`);
    if (keyword === 'TTL') ttlMs = wholeMs(value, 'TTL', fail);
    else until = pausePointOf(value, PAUSE_POINTS, fail);
  }
  return {
    ...base(body, 'RESERVE'),
    requestKey: requestKey.text,
    reserve: { requestKey: requestKey.text, user: user.text, sku: sku.text, ttlMs: ttlMs ?? DEFAULT_TTL_MS },
    ...(until ? { until } : {}),
  };
}

/** STATUS key / REMAINING sku. */
function readStep(verb: 'STATUS' | 'REMAINING', body: StepWords): ReadStep {
  if (verb === 'STATUS') {
    const requestKey = onlyArgument(body, 'a request key').text;
    return { ...base(body, verb), read: 'status', requestKey };
  }
  return { ...base(body, verb), read: 'remaining', sku: onlyArgument(body, 'a sku').text };
}

function parse(body: StepWords): ContractStep {
  const verb = body.words[0]?.text.toUpperCase() ?? '';
  const lifecycle = LIFECYCLE_STEPS.find((op) => op.toUpperCase() === verb);
  if (lifecycle) return lifecycleStep(lifecycle, body);
  if (verb === 'RESERVE') return reserveStep(body);
  return readStep(verb as 'STATUS' | 'REMAINING', body);
}

function strategyOf(step: ContractStep, env: StepEnvironment, what: string): Strategy {
  const strategy = env.contract?.design as Strategy | undefined;
  if (!strategy) throw Errors.badInput(`step ${step.name} ${what}, but no strategy was given`);
  return strategy;
}

function startLifecycle(session: Session, step: OperationStep, env: StepEnvironment): Promise<Outcome> {
  const strategy = strategyOf(step, env, `calls ${step.operation}`);
  const key = step.requestKey ?? '';
  const missing = () => Errors.badInput(`step ${step.name}: ${strategy.id} has no ${step.operation}`);
  return startPausable(session, step, key, env, async (ctx): Promise<StepResult> => {
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

function startReserve(session: Session, step: ReserveStep, env: StepEnvironment): Promise<Outcome> {
  const strategy = strategyOf(step, env, 'reserves');
  return startPausable(session, step, step.reserve.requestKey, env, async (ctx) => {
    // An answer outside the contract (an unknown outcome) is an error naming it, as for any client.
    const checked = checkAnswer(await strategy.reserve(ctx, step.reserve));
    if ('problem' in checked) throw new Error(checked.problem);
    return { status: 'ok', answer: checked.answer };
  });
}

function start(session: Session, contractStep: ContractStep, env: StepEnvironment): Promise<Outcome> {
  const step = reservationStep(contractStep);
  if (!step) throw new Error(`step ${contractStep.name} is not a reservation step`);
  if ('reserve' in step) return startReserve(session, step, env);
  if ('operation' in step) return startLifecycle(session, step, env);
  const strategy = strategyOf(step, env, `reads ${step.read}`);
  return startRead(session, (db) =>
    step.read === 'status' ? strategy.status(db, step.requestKey) : strategy.remaining(db, step.sku),
  );
}

/**
 * BACKDATE on a design without the hook: time passes instead. The key's RESERVE gave it a short TTL
 * (at most LONGEST_WAITED_TTL_MS), and the step lets the database clock pass that TTL, observed. Undefined
 * for every other step.
 */
function waitsInstead(contractStep: ContractStep, env: StepEnvironment): number | undefined {
  const step = reservationStep(contractStep);
  const strategy = env.contract?.design as Strategy | undefined;
  if (!step || !('operation' in step) || step.operation !== 'backdate' || !strategy || strategy.backdate)
    return undefined;
  const reserved = [...env.steps.values()]
    .map(reservationStep)
    .find((s) => s && 'reserve' in s && s.reserve.requestKey === step.requestKey);
  const ttl = reserved && 'reserve' in reserved ? reserved.reserve.ttlMs : undefined;
  if (ttl === undefined || ttl > LONGEST_WAITED_TTL_MS)
    throw Errors.badInput(
      `step ${step.name}: ${strategy.id} has no backdate hook, and ${step.requestKey} was not reserved with a TTL of at most ${LONGEST_WAITED_TTL_MS} ms to wait out`,
    );
  return ttl;
}

export const RESERVATION_VERBS: SpecVerbs = {
  contract: RESERVATION_CONTRACT,
  drives: 'drives a reservation',
  names: ['RESERVE', ...LIFECYCLE_STEPS.map((op) => op.toUpperCase()), 'STATUS', 'REMAINING'],
  onANode: ON_A_NODE,
  parse,
  start,
  waitsInstead,
};
