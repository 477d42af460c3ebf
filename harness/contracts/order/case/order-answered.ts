/**
 * One call an order case made of the design, as the harness recorded it: what was asked, on which session,
 * when (harness clock), and how it ended — the input of the answer counts, the errors check and the
 * history check. An order killed where nothing of it had committed is ROLLED_BACK (it took no effect);
 * one killed between its transactions, or cut off otherwise, is INDETERMINATE (it may have).
 */
import { ORDER_OUTCOMES, UNDECIDED_ORDER_PAUSE_POINTS } from '../../../../strategies/order/contract.ts';
import type { Ending } from '../../../history/history.ts';
import type { StepResult } from '../../../interleaving/permutation.ts';
import type { OrderAnswer, OrderCall } from '../order-history.ts';

export interface OrderAnswered {
  call: OrderCall;
  session: string;
  invokedAt: number;
  /** When its answer was in; null when none came (killed, lost). */
  completedAt: number | null;
  ending: Ending<OrderAnswer>;
  /** For the answer counts: an order's outcome, else ROLLED_BACK, INDETERMINATE or ERROR. */
  outcome: string;
  sqlstate?: string | undefined;
  error?: string | undefined;
}

const OUTCOMES: ReadonlySet<string> = new Set(ORDER_OUTCOMES);

/** How a call killed at `point` (or cut off anywhere else) ended. */
export function lostOrder(point: string | undefined): Pick<OrderAnswered, 'ending' | 'outcome'> {
  return point && (UNDECIDED_ORDER_PAUSE_POINTS as readonly string[]).includes(point)
    ? { ending: { kind: 'aborted' }, outcome: 'ROLLED_BACK' }
    : {
        ending: { kind: 'unknown', why: `killed at ${point ?? 'an unknown point'}` },
        outcome: 'INDETERMINATE',
      };
}

/** The call's record from the step result that ended it (`heldAt`: the pause point it was held at, if any). */
export function answeredOf(
  call: OrderCall,
  result: StepResult,
  times: { session: string; invokedAt: number; completedAt: number | undefined },
  heldAt?: string,
): OrderAnswered {
  const base = { call, session: times.session, invokedAt: times.invokedAt };
  if (result.status === 'error') {
    const sqlstate = result.sqlstate;
    if (result.killed) return { ...base, completedAt: null, ...lostOrder(heldAt), sqlstate };
    const why = [sqlstate, result.error].filter(Boolean).join(' ');
    return {
      ...base,
      completedAt: null,
      ending: { kind: 'unknown', why },
      outcome: 'ERROR',
      sqlstate,
      error: result.error,
    };
  }
  if (result.rolledBack)
    return { ...base, completedAt: null, ending: { kind: 'aborted' }, outcome: 'ROLLED_BACK' };
  const answer = result.answer as OrderAnswer | undefined;
  if (!answer) {
    const error = 'the call ended with no answer';
    return { ...base, completedAt: null, ending: { kind: 'unknown', why: error }, outcome: 'ERROR', error };
  }
  const outcome = 'outcome' in answer && OUTCOMES.has(answer.outcome) ? answer.outcome : 'ANSWERED';
  return { ...base, completedAt: times.completedAt ?? null, ending: { kind: 'ok', answer }, outcome };
}
