/**
 * A commit's acknowledgement lost on the way back (Jepsen's "indeterminate" operation): each of 5 clients
 * reserves through a loopback proxy that lets its COMMIT reach the server and cuts the connection before
 * the answer comes back. The client does not know the outcome and retries with the same request_key on a
 * new connection. Exactly one hold per key must result (the retry answers REPLAY, or HELD if the first
 * never committed), the stock down by one per key, nothing oversold.
 */
import { defineScenario, LAB_SKU, requestsFor, TTL_MS } from '../harness/scenario/scenario.ts';
import { CRASH_FAULTS } from './db-crash.ts';

const CLIENTS = 5;

export default defineScenario<{ answersLost: number }>({
  id: 'commit-ack-lost',
  kind: 'script',
  access: ['proxied-connection'],
  summary: `${CLIENTS} reserves whose commit answer a proxy cuts off; each retried with its key on a new connection`,
  input: { clients: CLIENTS, stock: [{ sku: LAB_SKU, total: 10 }], user: 'user-0001', ttlMs: TTL_MS },
  async run(ctx) {
    const requests = requestsFor(ctx.params, 1, CLIENTS);
    let lost = 0;
    for (const request of requests) {
      await ctx.withProxiedSession(async (session, proxy) => {
        // Counted when the proxy cuts; the reserve's error follows the cut, so the count is in by then.
        void proxy.loseNextCommitAnswer().then(() => {
          lost += 1;
        });
        await ctx.reserveOn(session, request);
      });
    }
    ctx.observe('answersLost', lost);
    await ctx.reserve(requests);
  },
  expect: {
    faults: CRASH_FAULTS,
    relations: (params, { outcomes, invariants }) => {
      const retried = (outcomes.HELD ?? 0) + (outcomes.REPLAY ?? 0);
      return [
        ...(outcomes.INDETERMINATE === params.clients && retried === params.clients
          ? []
          : [
              {
                check: 'outcomes' as const,
                message: `INDETERMINATE ${outcomes.INDETERMINATE ?? 0} and HELD + REPLAY ${retried}, expected ${params.clients} each`,
              },
            ]),
        ...(invariants.active === params.clients
          ? []
          : [
              {
                check: 'observations' as const,
                message: `active ${invariants.active}, expected one hold per key`,
              },
            ]),
      ];
    },
    exercised: (params, { observed }) =>
      observed.answersLost === params.clients
        ? []
        : [`${observed.answersLost ?? 0} of ${params.clients} commit answers were cut`],
  },
});
