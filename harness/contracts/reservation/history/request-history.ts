/**
 * A reserve request's result, as the history records it: an answer in the contract is an answered
 * operation; ROLLED_BACK (the harness made it roll back at a pause point) took no effect; an ERROR or an
 * INDETERMINATE answer may or may not have taken effect.
 */
import { OUTCOMES, type Outcome, type ReservationStatus } from '../../../../strategies/contract.ts';
import type { Ending } from '../../../history/history.ts';
import type { RequestResult } from '../driver/client-task.ts';
import type { Answer, Call, ReservationRecorder } from './reservation-operations.ts';

const ANSWERS: ReadonlySet<string> = new Set(OUTCOMES);

export function endingOfResult(result: RequestResult): Ending<Answer> {
  if (ANSWERS.has(result.outcome)) {
    // The driver held the answer to the contract (reserve-answer.ts): its status is one of STATUSES.
    const status = result.status as ReservationStatus | undefined;
    return { kind: 'ok', answer: { outcome: result.outcome as Outcome, status } };
  }
  if (result.outcome === 'ROLLED_BACK') return { kind: 'aborted' };
  const why = result.sqlstate ? `${result.outcome} ${result.sqlstate}` : result.outcome;
  return { kind: 'unknown', why };
}

/** The call a result answered (its ttl is what the request asked for; results carry none). */
export function reserveCall(result: RequestResult, ttlMs: number): Call {
  return { op: 'reserve', requestKey: result.requestKey, user: result.user, sku: result.sku, ttlMs };
}

/**
 * Records each result; one that carries no times of its own is bounded by its batch, from when the batch
 * was sent to when its last answer was in (a wider interval than the truth, never a narrower one).
 */
export function recordResults(
  recorder: ReservationRecorder,
  results: readonly RequestResult[],
  ttlOf: (requestKey: string) => number,
  batch: { sentAt: number; answeredAt: number; session: string },
): void {
  for (const r of results) {
    const at = { session: r.session ?? batch.session, node: r.node, invokedAt: r.invokedAt ?? batch.sentAt };
    recorder.add(
      reserveCall(r, ttlOf(r.requestKey)),
      at,
      r.completedAt ?? batch.answeredAt,
      endingOfResult(r),
    );
  }
}
