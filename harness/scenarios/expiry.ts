import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import {
  exactly,
  figure,
  observedExactly,
  requestsFor,
  type Scenario,
  type ScriptContext,
} from './scenario.ts';

const FIRST_EXPIRED = 8;
const CONCURRENT_JOBS = 4;

/** Runs expire on each session at once (real connections contending for the same row locks). */
export async function expireConcurrently(ctx: ScriptContext, jobs: number): Promise<number> {
  const units = await ctx.withSessions(jobs, (sessions) => Promise.all(sessions.map((s) => ctx.expire(s))));
  return units.reduce((a, b) => a + b, 0);
}

/**
 * Seed C28-07: expiry returns stock exactly once. 20 held; 8 made expired and expired (8); replayed (0);
 * replayed by 4 concurrent jobs (0 in total); the other 12 made expired and expired by 4 concurrent jobs
 * (12 in total).
 */
export const expiry: Scenario = {
  id: 'expiry',
  kind: 'script',
  summary:
    '20 held, 8 expired: expire, replay, 4 concurrent replays, then the other 12 with 4 concurrent jobs',
  input: SCENARIO_INPUTS.expiry,
  operations: ['expire', 'backdate'],
  async run(ctx) {
    const requests = requestsFor(ctx.params, 1, ctx.params.clients);
    await ctx.reserve(requests);
    const keys = requests.map((r) => r.requestKey);
    await ctx.backdate(keys.slice(0, FIRST_EXPIRED));
    const first = await expireConcurrently(ctx, 1);
    const replay = await expireConcurrently(ctx, 1);
    const concurrentReplay = await expireConcurrently(ctx, CONCURRENT_JOBS);
    await ctx.backdate(keys.slice(FIRST_EXPIRED));
    const rest = await expireConcurrently(ctx, CONCURRENT_JOBS);
    ctx.observe('unitsReturned', [first, replay, concurrentReplay, rest]);
  },
  check: (params, outcomes, invariants, observed) => [
    ...exactly({ HELD: params.clients }, outcomes),
    ...observedExactly({ unitsReturned: [FIRST_EXPIRED, 0, 0, params.clients - FIRST_EXPIRED] }, observed),
    ...figure('active', invariants.active, 0, 'after every hold expired'),
  ],
};
