/**
 * A scope's programs of one or two operations on two sessions, whatever the contract: the order the engine
 * sends their steps in, and several programs run one after another on the same two sessions, each under a
 * tag of its own so that their keys and rows never meet.
 */
import type { ScheduledProgram } from './schedule.ts';

/** A program's operations by session, and the session each of its steps is sent on, in order. */
export interface TwoSessions<Op> {
  sessions: Op[][];
  order: number[];
}

/**
 * The first operation on the first session, the second (if any) on the second: one after the other, or
 * (`inside`) the first stops at its pause, the second is sent, the first is resumed, then the second's
 * RESUME if any. `stepCount`: how many steps an operation takes (its RESUME too).
 */
export function twoSessions<Op>(
  ops: readonly Op[],
  inside: boolean,
  stepCount: (op: Op) => number,
): TwoSessions<Op> {
  const [first, second] = ops;
  if (!first) return { sessions: [[], []], order: [] };
  const firstSteps = stepCount(first);
  if (!second) return { sessions: [[first], []], order: Array(firstSteps).fill(0) };
  const secondSteps = stepCount(second);
  const order = inside
    ? [0, 1, 0, ...Array(secondSteps - 1).fill(1)]
    : [...Array(firstSteps).fill(0), ...Array(secondSteps).fill(1)];
  return { sessions: [[first], [second]], order };
}

/** Each of `count` programs' tag, digits first and of one width (`07.`), so that tags sort as numbers. */
export function batchTags(count: number): string[] {
  const width = String(Math.max(0, count - 1)).length;
  return Array.from({ length: count }, (_, i) => `${String(i).padStart(width, '0')}.`);
}

/** Tagged programs one after another on the same two sessions, in the order given (no PCT). */
export function batched<Op>(programs: readonly TwoSessions<Op>[]): ScheduledProgram<Op> & TwoSessions<Op> {
  return {
    sessions: [programs.flatMap((p) => p.sessions[0] ?? []), programs.flatMap((p) => p.sessions[1] ?? [])],
    order: programs.flatMap((p) => p.order),
    priorities: [0, 0],
    changes: [],
  };
}
