/**
 * The flash-sale lab's confirm-vs-expire race: 40 expired HELD rows; a confirmer (one transaction per row)
 * and an expirer (one statement) start together. Each row must end CONFIRMED or EXPIRED exactly once, and
 * units come back only for the EXPIRED ones. Both sides win on every run: the confirmer confirms the first
 * quarter before the race and never asks for the last quarter, so at least 10 rows end each way; how the
 * middle half splits is the scheduler's, and only the sums are asserted. (One row in both orders is the
 * confirm-expire-race spec.)
 */
import {
  defineScenario,
  figure,
  LAB_SKU,
  requestsFor,
  SHORT_HOLD_MS,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

export default defineScenario<{ confirmed: number; unitsReturned: number }>({
  id: 'confirm-vs-expire',
  kind: 'script',
  summary: '40 expired HELD rows; a confirmer and an expirer race from one start',
  input: { clients: 40, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  operations: ['expire', 'confirm'],
  async run(ctx) {
    const requests = ctx.shortHolds(requestsFor(ctx.params, 1, ctx.params.clients), SHORT_HOLD_MS);
    await ctx.reserve(requests);
    await ctx.backdate(requests.map((r) => r.requestKey));
    const quarter = Math.floor(requests.length / 4);
    const [confirmed, returned] = await ctx.withSessions(2, async ([confirmer, expirer]) => {
      if (!confirmer || !expirer) throw new Error('two sessions expected');
      let n = 0;
      for (const r of requests.slice(0, quarter)) if (await ctx.confirm(confirmer, r.requestKey)) n++;
      const confirming = (async () => {
        for (const r of requests.slice(quarter, requests.length - quarter))
          if (await ctx.confirm(confirmer, r.requestKey)) n++;
        return n;
      })();
      return Promise.all([confirming, ctx.expire(expirer)]);
    });
    ctx.observe('confirmed', confirmed);
    ctx.observe('unitsReturned', returned);
  },
  expect: {
    outcomes: (params) => ({ HELD: params.clients }),
    relations(params, { invariants, observed }) {
      const confirmed = observed.confirmed ?? 0;
      const returned = observed.unitsReturned ?? 0;
      return [
        ...figure('confirmed + returned', confirmed + returned, params.clients, '(each row handled once)'),
        ...figure('active', invariants.active, confirmed, '(the confirmed rows)'),
      ];
    },
    exercised: (_params, { observed }) => [
      ...(observed.confirmed ? [] : ['no confirm won']),
      ...(observed.unitsReturned ? [] : ['no row expired']),
    ],
  },
});
