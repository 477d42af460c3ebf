/**
 * Driving a retrying design's give-up path on purpose: the design with its declared retry bound
 * (Strategy.retryBound) set to its least (GIVE_UP_BOUND, or the knob's `min` when higher), and one reserve
 * made to lose every round — each time it stops at `after-read`, a competing reserve on another session
 * takes a unit and commits, so what the loser read is stale by the time it writes. A design true to its
 * bound answers GAVE_UP after that many lost rounds; one that goes on retrying past it wins the next
 * round and answers HELD. The competitors of rounds never played are sent afterwards, so every request
 * the case sends is answered. All of it runs on this thread, on two sessions of the case's own, and is
 * recorded as the case's requests, with their own times.
 */
import type { ReserveRequest, SessionContext, Strategy } from '../../../../strategies/contract.ts';
import { harnessNow } from '../../../history/recorder.ts';
import { configured } from '../../../registry/strategy-variants.ts';
import type { RequestResult } from '../driver/client-task.ts';
import type { ScriptContext } from './scenario.ts';
import { reserveOnSession } from './script-reservations.ts';
import type { ScriptScope } from './script-scope.ts';

/** Attempts the give-up scenario allows: one retry, then GAVE_UP. */
export const GIVE_UP_BOUND = 2;

/** The design with its retry bound at its least; undefined when it declares none. */
export function boundedVariant(strategy: Strategy): { strategy: Strategy; bound: number } | undefined {
  const knob = strategy.retryBound;
  const declared = knob ? strategy.parameters?.[knob] : undefined;
  if (!knob || !declared) return undefined;
  const bound = Math.max(GIVE_UP_BOUND, declared.min);
  return { strategy: configured(strategy, { [knob]: bound }), bound };
}

/** A reserve on `session`, with its own times and session name for the history. */
async function timed(
  strategy: Strategy,
  session: SessionContext,
  request: ReserveRequest,
  name: string,
): Promise<RequestResult> {
  const invokedAt = harnessNow();
  const result = await reserveOnSession(strategy, session, request);
  return { ...result, invokedAt, completedAt: harnessNow(), session: name };
}

export function scriptGiveUp(scope: ScriptScope): Pick<ScriptContext, 'loseEveryRound'> {
  const { ref, sessions, record } = scope;
  return {
    async loseEveryRound(loser, competitor) {
      const variant = boundedVariant(ref.strategy);
      if (!variant) throw new Error(`${ref.strategy.id} declares no retry bound (retryBound)`);
      const { strategy, bound } = variant;
      const competitors = Array.from({ length: bound }, (_, i) => competitor(i + 1));
      let lost = 0;
      const results = await record.reserve([{ index: 0, requests: [loser, ...competitors] }], () =>
        sessions.withSessions(2, async ([playing, rival]) => {
          if (!playing || !rival) throw new Error('the give-up drive needs two sessions');
          const rivals: RequestResult[] = [];
          const losing: SessionContext = {
            ...playing,
            pausesAt: (point) => point === 'after-read' && lost < bound,
            pause: async (point) => {
              if (point !== 'after-read' || lost >= bound) return;
              const request = competitors[lost++];
              if (request) rivals.push(await timed(strategy, rival, request, 'competitor'));
            },
          };
          const answer = await timed(strategy, losing, loser, 'loser');
          for (const request of competitors.slice(rivals.length))
            rivals.push(await timed(strategy, rival, request, 'competitor'));
          return [answer, ...rivals];
        }),
      );
      return { answer: results[0], lost, bound };
    },
  };
}
