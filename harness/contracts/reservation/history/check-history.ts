/**
 * The reservation contract's `linearizable` check: is there an order of the case's operations, consistent
 * with real time, in which every answer is the model's answer (model.ts)? Each independent part of the
 * history (partition.ts: a sku and what joins it) is checked alone by the one check every contract shares
 * (check-parts.ts), a reserve of unknown ending settled by the final read where it can be.
 */

import { checkParts, type HistoryVerdict } from '../../../history/check-parts.ts';
import { FINAL_READ_SESSION } from '../../../history/recorder.ts';
import type { SearchModel } from '../../../history/search-model.ts';
import { type SearchOperation, searchOperationsOf } from '../../../history/search-operation.ts';
import type { Change } from './contract-state.ts';
import { ContractState } from './contract-state.ts';
import { type ModelOptions, modelResults, sameAnswer, type TimedCall } from './model.ts';
import { partitionHistory } from './partition.ts';
import { refuted } from './refutations.ts';
import type { Answer, Call, ReservationHistory, ReservationOperation } from './reservation-operations.ts';
import { RESERVATION_WITNESS_VIEW } from './reservation-witness.ts';

export interface CheckOptions {
  budget?: number;
  model?: ModelOptions;
}

/**
 * Operations the search takes: answered ones with their answer; unknown ones with any answer, optional,
 * their database clock open until the history's end (they can have taken effect no later than the
 * harness's last read); aborted ones left out.
 */
export function searchOperations(
  operations: readonly ReservationOperation[],
): SearchOperation<Call, Answer>[] {
  const end = Math.max(0, ...operations.map((o) => o.db.to ?? o.db.from));
  const searched = searchOperationsOf(operations, end);
  return settledByFinalRead(searched);
}

/**
 * A reserve of unknown ending whose key no other reserve names is settled by the final read, as Elle
 * settles an indeterminate write by a later read: a key the read finds NOT_FOUND was never recorded, so
 * that reserve took no effect (or took it after the read, which nothing follows); a key it finds in any
 * status was recorded by that reserve and nothing else, so it answered HELD before the read. Without this,
 * a crash's hundreds of cut-off requests would each be a choice the search makes blindly.
 */
function settledByFinalRead(operations: SearchOperation<Call, Answer>[]): SearchOperation<Call, Answer>[] {
  const finalStatus = new Map<string, string>();
  let readAt = Number.POSITIVE_INFINITY;
  const reserves = new Map<string, number>();
  for (const { op } of operations) {
    if (op.call.op === 'reserve')
      reserves.set(op.call.requestKey, (reserves.get(op.call.requestKey) ?? 0) + 1);
    if (op.session !== FINAL_READ_SESSION || op.call.op !== 'status' || op.ending.kind !== 'ok') continue;
    const { answer } = op.ending;
    if ('status' in answer && answer.status !== undefined) finalStatus.set(op.call.requestKey, answer.status);
    readAt = Math.min(readAt, op.invokedAt);
  }
  return operations.flatMap((s): SearchOperation<Call, Answer>[] => {
    const { call } = s.op;
    if (s.required || call.op !== 'reserve' || reserves.get(call.requestKey) !== 1) return [s];
    const status = finalStatus.get(call.requestKey);
    if (status === undefined) return [s];
    if (status === 'NOT_FOUND') return [];
    return [
      {
        ...s,
        op: { ...s.op, completedAt: readAt },
        wanted: { outcome: 'HELD', status: 'HELD' },
        required: true,
      },
    ];
  });
}

/** The reservation contract's model as the search takes it (search-model.ts). */
function reservationModel(
  totals: ReadonlyMap<string, number>,
  options: ModelOptions,
): SearchModel<Call, Answer, TimedCall, Change, ContractState> {
  return {
    start: () => new ContractState(totals),
    results: (state, timed, wanted) => modelResults(state, timed, options, wanted),
    sameAnswer,
    // A backdate answers the same whatever it changes: placing it at once would fix what it changed.
    placedAtOnce: (timed) => timed.call.op !== 'backdate',
    refuted: (operations) => refuted(operations, totals),
  };
}

export function checkHistory(history: ReservationHistory, options: CheckOptions = {}): HistoryVerdict {
  const model = options.model ?? {};
  const totals = new Map(history.stock.map((s) => [s.sku, s.total]));
  const parts = partitionHistory(history.operations, [...totals.keys()]).map((part) => ({
    searched: searchOperations(part),
    size: part.length,
  }));
  const start = Math.min(...history.operations.map((o) => o.invokedAt));
  return checkParts(
    parts,
    { operations: history.operations.length, start },
    {
      model: reservationModel(totals, model),
      explain: reservationModel(totals, { ...model, withoutGaveUp: true }),
      view: RESERVATION_WITNESS_VIEW,
      part: 'a part',
    },
    options.budget,
  );
}
