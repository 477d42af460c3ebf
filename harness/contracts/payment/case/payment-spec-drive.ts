/**
 * A payment spec on the interleaving engine: its PAY steps call the design's `pay` on the engine's
 * sessions, held at their pause points, released, rolled back or killed by RESUME steps, with blocking
 * seen through pg_blocking_pids as for any step. The answers are read off the engine's records here —
 * a held pay's from the RESUME step that ended it — never from the design's own account.
 */
import type {
  PaymentDesign,
  PaymentPausePoint,
  PaymentRequest,
  PaymentResult,
} from '../../../../strategies/payment/contract.ts';
import { runSpecOrder, type SpecRun } from '../../../case/spec-drive.ts';
import { type SpecOrders, specOrders } from '../../../case/spec-orders.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import type { Permutation, StepRecord, StepResult } from '../../../interleaving/permutation.ts';
import { specContract } from '../../../interleaving/spec-contract.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import type { Observed } from '../../../verdict/case-result.ts';
import { PAYMENT_VERBS, payStepOf } from '../spec/payment-verbs.ts';
import type { PaymentFinalRead } from '../verdict/payment-final-read.ts';
import type { PaymentRead } from '../verdict/payment-history-check.ts';
import { countsOf, type PaymentAnswer, type PaymentProblem } from '../verdict/payment-invariants.ts';
import type { PaymentSpecScenario } from './payment-scenario.ts';
import { lostOutcome } from './payment-sessions.ts';

/** What one payment case drove, by a script or a spec, for the final read and the verdict. */
export interface PaymentDriven {
  answers: readonly PaymentAnswer[];
  /** The reads the drive made of payments mid-case, with their times, for the history check. */
  reads: readonly PaymentRead[];
  /** Keys the final read must cover beyond those the answers name (an order flow's orders). */
  keys: readonly string[];
  /** Checks of what the drive ran beside the design (an order flow's), over the final read. */
  orderProblems(read: PaymentFinalRead): Promise<PaymentProblem[]>;
  /** The order whose exact claims are judged: a script's one run, a spec's listed permutation. */
  listed: boolean;
  /** A spec's records, in the order the engine sent the steps. */
  steps?: readonly StepRecord[];
  /** Holds the spec claims that did not happen (a PAY … UNTIL that never reached its point). */
  notExercised: readonly string[];
  /** The figures the expectations compare, once the final read is in. */
  observe(read: PaymentFinalRead): Record<string, Observed>;
}

/** The spec's one listed permutation, the one judged, and every other order of its steps. */
export function paymentSpecOrders(
  scenario: PaymentSpecScenario,
  holdAt: PaymentPausePoint | undefined,
): SpecOrders {
  const file = `fixtures/payment/scenarios/${scenario.id}.ts`;
  const text = scenario.spec(holdAt);
  if (specContract(parseSpec(text, file, [PAYMENT_VERBS]), file, [PAYMENT_VERBS]) !== PAYMENT_VERBS)
    throw new Error(`payment scenario ${scenario.id}: its spec has no PAY step`);
  return specOrders(text, file, [PAYMENT_VERBS]);
}

/** One order of the spec on the case's schema; `listed`: the order whose claims are judged. */
export async function drivePaymentSpec(
  connection: CaseConnection,
  design: PaymentDesign,
  scenario: PaymentSpecScenario,
  run: SpecRun,
): Promise<PaymentDriven> {
  const contract = { verbs: PAYMENT_VERBS, design };
  const { steps, notExercised } = await runSpecOrder(connection, contract, scenario.explored === true, run);
  const answers = paymentAnswersOf(run.permutation, steps);
  return {
    answers,
    reads: [],
    keys: [],
    orderProblems: async () => [],
    listed: run.listed,
    steps,
    notExercised,
    observe: (read) => scenario.observe?.({ steps, answers, counts: countsOf(read) }) ?? {},
  };
}

/** A pay the spec held at a point and has not yet seen end. */
interface Held {
  request: PaymentRequest;
  point: PaymentPausePoint;
  /** When its PAY step was sent: the history's start of the call. */
  sentAt: number;
}

/**
 * Every PAY step's answer, in the order they ended: a pay that ran to its end answers in its own record;
 * one held at its pause point in the record of the RESUME step that let it go, rolled it back or killed
 * it; one still held when the permutation ended lost its connection there.
 */
export function paymentAnswersOf(permutation: Permutation, steps: readonly StepRecord[]): PaymentAnswer[] {
  const byName = new Map(permutation.steps.map((s) => [s.name, s]));
  const held = new Map<string, Held>();
  const answers: PaymentAnswer[] = [];
  for (const record of steps) {
    const listed = byName.get(record.step);
    const step = payStepOf(listed);
    if (step) {
      const { result } = record;
      if (result.status === 'ok' && result.paused) {
        const point = result.paused as PaymentPausePoint;
        held.set(step.session, { request: step.pay, point, sentAt: record.sentAt });
      } else answers.push(timed(answerOf(step.pay, result, undefined), record.sentAt, record));
    } else if (listed && 'resume' in listed) {
      const pending = held.get(listed.session);
      held.delete(listed.session);
      if (pending)
        answers.push(timed(answerOf(pending.request, record.result, pending.point), pending.sentAt, record));
    }
  }
  for (const pending of held.values())
    answers.push({
      request: pending.request,
      outcome: lostOutcome(pending.point),
      invokedAt: pending.sentAt,
    });
  return answers;
}

/** The answer with the times the history check needs: sent with its PAY step, in with `ended`'s record. */
function timed(answer: PaymentAnswer, sentAt: number, ended: StepRecord): PaymentAnswer {
  return { ...answer, invokedAt: sentAt, ...(ended.completedAt ? { completedAt: ended.completedAt } : {}) };
}

function answerOf(
  request: PaymentRequest,
  result: StepResult,
  heldAt: PaymentPausePoint | undefined,
): PaymentAnswer {
  if (result.status === 'error') {
    const sqlstate = result.sqlstate ? { sqlstate: result.sqlstate } : {};
    if (result.killed) return { request, outcome: lostOutcome(heldAt), ...sqlstate };
    return { request, outcome: 'ERROR', error: result.error, ...sqlstate };
  }
  if (result.answer) return { request, ...(result.answer as PaymentResult) };
  if (result.rolledBack) return { request, outcome: 'ROLLED_BACK' };
  return { request, outcome: 'ERROR', error: 'the pay ended with no answer' };
}
