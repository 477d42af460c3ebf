/**
 * The in-memory quota design's reserve, attempt by attempt (memory-quota-design.ts): an attempt that finds
 * its node's count dropped — another sale's outcome went unknown while it read — tries again on the count
 * rebuilt from the ledger (node-count.ts). A count can be dropped again and again (a cluster whose members
 * keep going away), so the attempts are bounded: the last one dropped, the reserve answers GAVE_UP, which
 * is true — an attempt that finds its count dropped has taken no unit and written nothing.
 *
 * The attempts are one operation to the harness: each pause point is offered once over all of them. A
 * retry that passed `after-read` again would otherwise be held there a second time by a harness that
 * holds each time the point is announced (a barrier counts its arrivals, a give-up drive plays a round).
 */
import type { PausePoint, ReserveResult, SessionContext } from '../contract.ts';
import type { NodeCount } from './node-count.ts';
import { MAX_ATTEMPTS } from './retry-bound.ts';

/** What an attempt answers that found its node's count dropped before it took a unit: try again. */
export const COUNT_DROPPED = Symbol('count dropped');

/** Attempts per reserve: room for one dropped count per other sale of the node whose outcome went unknown. */
export const COUNT_ATTEMPTS = MAX_ATTEMPTS;

export type CountAttempt = (
  ctx: SessionContext,
  count: NodeCount,
) => Promise<ReserveResult | typeof COUNT_DROPPED>;

/** `ctx`, whose pause points each hold (or are offered) at most once, whichever call passes them. */
function pausingOnce(ctx: SessionContext): SessionContext {
  const passed = new Set<PausePoint>();
  return {
    ...ctx,
    pausesAt: (point) => !passed.has(point) && (ctx.pausesAt?.(point) ?? true),
    pause: async (point) => {
      if (passed.has(point)) return;
      passed.add(point);
      await ctx.pause(point);
    },
  };
}

/** `attempt` on the node's current count until one is not dropped, at most `attempts` times, then GAVE_UP. */
export async function onLiveCount(
  ctx: SessionContext,
  count: () => Promise<NodeCount>,
  attempt: CountAttempt,
  attempts = COUNT_ATTEMPTS,
): Promise<ReserveResult> {
  const once = pausingOnce(ctx);
  for (let made = 1; ; made++) {
    const answer = await attempt(once, await count());
    if (answer !== COUNT_DROPPED) return answer;
    if (made >= attempts) return { outcome: 'GAVE_UP' };
    ctx.retried?.('count-rebuilt');
  }
}
