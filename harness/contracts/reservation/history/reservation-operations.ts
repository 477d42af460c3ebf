/**
 * The reservation contract's operations as a case's history records them (harness/history/history.ts):
 * what each call asked and what it answered, and their one-line descriptions for the report.
 */
import type { Outcome, ReservationStatus } from '../../../../strategies/contract.ts';
import type { History, HistoryOperation } from '../../../history/history.ts';
import type { HistoryRecorder } from '../../../history/recorder.ts';

export type KeyStatus = ReservationStatus | 'NOT_FOUND';

/** What a contract operation asked, per kind. */
export type Call =
  | { op: 'reserve'; requestKey: string; user: string; sku: string; ttlMs: number }
  | { op: 'confirm' | 'release' | 'status'; requestKey: string }
  | { op: 'expire' }
  | { op: 'disable' | 'remaining'; sku: string }
  /** The test hook: these reservations' expiry lies in the past from now on. */
  | { op: 'backdate'; requestKeys: readonly string[] };

/** What it answered, per kind (`done` for backdate, which answers nothing). */
export type Answer =
  | { outcome: Outcome; status?: ReservationStatus | undefined }
  | { moved: boolean }
  | { units: number }
  | { status: KeyStatus }
  | { remaining: number }
  | { done: true };

/** One operation of a reservation case's history, the history, and the recorder that records it. */
export type ReservationOperation = HistoryOperation<Call, Answer>;
export type ReservationHistory = History<Call, Answer>;
export type ReservationRecorder = HistoryRecorder<Call, Answer>;

/** One line for an operation, for the report: `reserve k1 u1 sku-a → HELD`. */
export function describeCall(call: Call): string {
  switch (call.op) {
    case 'reserve':
      return `reserve ${call.requestKey} ${call.user} ${call.sku}`;
    case 'confirm':
    case 'release':
    case 'status':
      return `${call.op} ${call.requestKey}`;
    case 'expire':
      return 'expire';
    case 'disable':
    case 'remaining':
      return `${call.op} ${call.sku}`;
    case 'backdate':
      return `backdate ${call.requestKeys.join(' ')}`;
  }
}

export function describeAnswer(answer: Answer): string {
  if ('outcome' in answer)
    return answer.outcome === 'REPLAY' ? `REPLAY ${answer.status ?? '(no status)'}` : answer.outcome;
  if ('moved' in answer) return answer.moved ? 'moved' : 'not moved';
  if ('units' in answer) return `${answer.units} unit${answer.units === 1 ? '' : 's'} back`;
  if ('status' in answer) return answer.status;
  if ('remaining' in answer) return `${answer.remaining} remaining`;
  return 'done';
}
