/**
 * An order spec on the interleaving engine: its steps call the order design on the engine's sessions, held
 * at their pause points, let go, rolled back or killed by RESUME steps, blocking seen through
 * pg_blocking_pids as for any step. Each call's record is read off the engine's records here — a held
 * call's end from the RESUME step that ended it — never from the design's own account.
 */
import type { OrderDesign, OrderPausePoint } from '../../../../strategies/order/contract.ts';
import { runSpecOrder, type SpecRun } from '../../../case/spec-drive.ts';
import { type SpecOrders, specOrders } from '../../../case/spec-orders.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import type { Permutation, StepRecord } from '../../../interleaving/permutation.ts';
import type { OrderSpecScenario } from '../order-scenario.ts';
import { orderCallOf } from '../order-steps.ts';
import { ORDER_SPEC_VERBS, orderStepOf } from '../spec/order-verbs.ts';
import { answeredOf, lostOrder, type OrderAnswered } from './order-answered.ts';

/** What one order case drove, by its clients or a spec, for the final read and the verdict. */
export interface OrderDriven {
  answered: readonly OrderAnswered[];
  /** Every key the case sent, for the final read. */
  keys: readonly string[];
  /** The order whose exact claims are judged: the clients' one run, a spec's listed permutation. */
  listed: boolean;
  /** A spec's records, in the order the engine sent the steps. */
  steps?: readonly StepRecord[];
  /** Per step name, the call's answer (a spec's), for the scenario's `answers`. */
  answers: Readonly<Record<string, unknown>>;
  /** The claims the drive did not make happen (an ORDER … UNTIL that never reached its point). */
  notExercised: readonly string[];
}

/** The spec's one listed permutation, the one judged, and every other order of its steps. */
export function orderSpecOrders(
  scenario: OrderSpecScenario,
  holdAt: OrderPausePoint | undefined,
): SpecOrders {
  return specOrders(scenario.spec(holdAt), `fixtures/order/scenarios/${scenario.id}.ts`, [ORDER_SPEC_VERBS]);
}

export async function driveOrderSpec(
  connection: CaseConnection,
  design: OrderDesign,
  scenario: OrderSpecScenario,
  run: SpecRun,
): Promise<OrderDriven> {
  const contract = { verbs: ORDER_SPEC_VERBS, design };
  const { steps, notExercised } = await runSpecOrder(connection, contract, scenario.explored === true, run);
  const { answered, answers } = orderCallsOf(run.permutation, steps);
  const keys = answered.flatMap((a) =>
    'requestKey' in a.call ? [a.call.requestKey] : a.call.op === 'order' ? [a.call.request.requestKey] : [],
  );
  return {
    answered,
    keys,
    listed: run.listed,
    steps,
    answers,
    notExercised,
  };
}

interface Held {
  step: string;
  session: string;
  call: ReturnType<typeof orderCallOf>;
  point: string;
  sentAt: number;
}

/**
 * Every order step's call, in the order they ended: one that ran to its end in its own record; one held at
 * its pause point in the record of the RESUME step that ended it; one still held when the permutation
 * ended lost its connection there.
 */
export function orderCallsOf(permutation: Permutation, steps: readonly StepRecord[]) {
  const byName = new Map(permutation.steps.map((s) => [s.name, s]));
  const held = new Map<string, Held>();
  const answered: OrderAnswered[] = [];
  const answers: Record<string, unknown> = {};
  const record = (name: string, a: OrderAnswered) => {
    answered.push(a);
    answers[name] = a.ending.kind === 'ok' ? a.ending.answer : a.outcome;
  };
  for (const r of steps) {
    const listed = byName.get(r.step);
    const step = orderStepOf(listed);
    const times = { session: r.session, invokedAt: r.sentAt, completedAt: r.completedAt };
    if (step) {
      const call = orderCallOf(step.order);
      if (r.result.status === 'ok' && r.result.paused)
        held.set(r.session, {
          step: step.name,
          session: r.session,
          call,
          point: r.result.paused,
          sentAt: r.sentAt,
        });
      else record(step.name, answeredOf(call, r.result, times));
    } else if (listed && 'resume' in listed) {
      const pending = held.get(listed.session);
      held.delete(listed.session);
      if (pending)
        record(
          pending.step,
          answeredOf(pending.call, r.result, { ...times, invokedAt: pending.sentAt }, pending.point),
        );
    }
  }
  for (const p of held.values())
    record(p.step, {
      call: p.call,
      session: p.session,
      invokedAt: p.sentAt,
      completedAt: null,
      ...lostOrder(p.point),
    });
  return { answered, answers };
}
