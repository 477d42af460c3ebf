/**
 * A retrying design's give-up path, driven on purpose (the isolation-matrix chapter's "RC version CAS" and
 * "whole transaction retry" must end somewhere): the design runs with its declared retry bound
 * (Strategy.retryBound) at its least, 2 attempts, and one reserve loses every round — each time it stops at
 * `after-read`, another user takes a unit and commits first. It must answer GAVE_UP and leave nothing behind:
 * its key NOT_FOUND (`gaveUpWrote`, `linearizable`), no unit gone (`drift`, and the sell-what-remains probe
 * sells the rest). A design that declares no retry bound never gives up and takes no part.
 */
import { defineScenario, exactly, LAB_SKU, requestOn, TTL_MS, userId } from '../harness/scenario/scenario.ts';

interface Seen extends Record<string, number | string> {
  /** The attempts the design was given (its bound at its least). */
  bound: number;
  /** Rounds the loser lost: one per competitor that committed while it was stopped at after-read. */
  lost: number;
  /** What the loser was told. */
  answer: string;
}

export default defineScenario<Seen>({
  id: 'give-up',
  kind: 'script',
  summary:
    'a reserve made to lose every round at after-read until its declared retry bound (2 attempts) runs out: GAVE_UP, nothing written',
  input: { clients: 3, stock: [{ sku: LAB_SKU, total: 10 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 1 },
  requires: [{ operation: 'reserve', anyOf: ['after-read'] }],
  beyondExplorer:
    'it runs the design with its retry bound at its least and makes every round lose; an explored program runs the design as it is',
  sitsOut: (strategy) =>
    strategy.retryBound
      ? undefined
      : 'declares no retry bound (retryBound): its reserve never gives up, so it has no give-up path',
  async run(ctx) {
    const { params } = ctx;
    const loser = requestOn(params, 'req-loser', params.user);
    const { answer, lost, bound } = await ctx.loseEveryRound(loser, (round) =>
      requestOn(params, `req-rival-${round}`, userId(round + 1)),
    );
    ctx.observe('bound', bound);
    ctx.observe('lost', lost);
    ctx.observe('answer', answer?.outcome ?? 'none');
  },
  expect: {
    relations(_params, { outcomes, observed }) {
      const bound = typeof observed.bound === 'number' ? observed.bound : 0;
      return exactly({ HELD: bound, GAVE_UP: 1 }, outcomes);
    },
    exercised(_params, { observed }) {
      if (observed.answer === 'GAVE_UP' && observed.lost === observed.bound) return [];
      return [
        `the loser answered ${observed.answer} after losing ${observed.lost} of its ${observed.bound} attempts: its declared retry bound did not end its retries in GAVE_UP`,
      ];
    },
  },
});
