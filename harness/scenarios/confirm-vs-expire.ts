import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { exactly, figure, requestsFor, type Scenario } from './scenario.ts';

/**
 * Seed C28-08: 40 expired HELD rows; a confirmer (one transaction per row) and an expirer (one statement)
 * start together. Each row must end CONFIRMED or EXPIRED exactly once, and units come back only for the
 * EXPIRED ones. The split between them is the scheduler's; only the sums are asserted.
 */
export const confirmVsExpire: Scenario = {
  id: 'confirm-vs-expire',
  kind: 'script',
  summary: '40 expired HELD rows; a confirmer and an expirer race from one start',
  input: SCENARIO_INPUTS['confirm-vs-expire'],
  operations: ['expire', 'confirm', 'backdate'],
  async run(ctx) {
    const requests = requestsFor(ctx.params, 1, ctx.params.clients);
    await ctx.reserve(requests);
    await ctx.backdate(requests.map((r) => r.requestKey));
    const [confirmed, returned] = await ctx.withSessions(2, async ([confirmer, expirer]) => {
      if (!confirmer || !expirer) throw new Error('two sessions expected');
      const confirming = (async () => {
        let n = 0;
        for (const r of requests) if (await ctx.confirm(confirmer, r.requestKey)) n++;
        return n;
      })();
      return Promise.all([confirming, ctx.expire(expirer)]);
    });
    ctx.observe('confirmed', confirmed);
    ctx.observe('unitsReturned', returned);
  },
  check(params, outcomes, invariants, observed) {
    const confirmed = Number(observed.confirmed);
    const returned = Number(observed.unitsReturned);
    return [
      ...exactly({ HELD: params.clients }, outcomes),
      ...figure('confirmed + returned', confirmed + returned, params.clients, '(each row handled once)'),
      ...figure('active', invariants.active, confirmed, '(the confirmed rows)'),
    ];
  },
};
