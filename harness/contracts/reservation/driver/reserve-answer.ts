/**
 * A reserve's answer as the driver records it, for the worker-thread clients and the black-box driver
 * alike: bounded in time, and held to the contract (an answer outside it is an ERROR naming it, never an
 * outcome left uncounted).
 */
import type { ReserveRequest } from '../../../../strategies/contract.ts';
import { checkAnswer } from '../../../registry/strategy-module.ts';
import type { RequestResult } from './client-task.ts';

/**
 * A reserve that never answers must not hang the run: after `ms` it rejects (after `onTimeout`, which cuts
 * what the reserve holds) and the other clients go on.
 */
export function answerWithin<T>(work: Promise<T>, ms: number, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(`no answer within ${ms / 1000} s: reserve never resolved`));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** What a reserve answered, checked against the contract, as the request's result. */
export function answeredResult(
  request: ReserveRequest,
  answer: unknown,
  latencyMs: number,
  retries: Pick<RequestResult, 'retries'>,
): RequestResult {
  const checked = checkAnswer(answer);
  const { requestKey, user, sku } = request;
  return 'problem' in checked
    ? { requestKey, user, sku, outcome: 'ERROR', latencyMs, error: checked.problem, ...retries }
    : { requestKey, user, sku, ...checked.answer, latencyMs, ...retries };
}
