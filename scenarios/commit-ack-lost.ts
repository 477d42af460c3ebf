/**
 * A commit's acknowledgement lost on the way back (Jepsen's "indeterminate" operation): each of 5 clients
 * reserves through a loopback proxy that lets the commit of its reservation reach the server and cuts the
 * connection before the answer comes back. The proxy finds that answer on the wire and in the database:
 * the first answer that leaves the session with no transaction open and after which the reservation reads
 * back committed, whether the design opens with an autocommit lookup, runs a read-only transaction first,
 * or writes the reservation in one autocommit statement. The client does not know the outcome and retries
 * with the same request_key on a new connection. What is counted is lost commits, read back from the
 * database (the reservation committed, its client cut off), not cuts; every retry of a lost commit must
 * answer REPLAY, one hold per key must result, the stock down by one per key, nothing oversold.
 */
import {
  defineScenario,
  LAB_SKU,
  requestsFor,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';
import { SQLSTATE } from '../strategies/support/sqlstate.ts';
import { CRASH_FAULTS } from './db-crash.ts';

const CLIENTS = 5;

export default defineScenario<{ commitsLost: number }>({
  id: 'commit-ack-lost',
  kind: 'script',
  access: ['proxied-connection'],
  summary: `${CLIENTS} reserves whose commit answer a proxy cuts off; each retried with its key on a new connection`,
  input: {
    clients: CLIENTS,
    stock: [{ sku: LAB_SKU, total: 10 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  async run(ctx) {
    const requests = requestsFor(ctx.params, 1, CLIENTS);
    const committed = async (requestKey: string) => (await ctx.status(requestKey)) !== 'NOT_FOUND';
    let commitsLost = 0;
    for (const request of requests) {
      const answer = await ctx.withProxiedSession(async (session, proxy) => {
        proxy.loseCommitAnswer(() => committed(request.requestKey));
        return ctx.reserveOn(session, request);
      });
      const cutOff = answer.outcome === 'ERROR' && answer.sqlstate === SQLSTATE.connectionFailure;
      if (cutOff && (await committed(request.requestKey))) commitsLost += 1;
    }
    ctx.observe('commitsLost', commitsLost);
    await ctx.reserve(requests);
  },
  expect: {
    faults: CRASH_FAULTS,
    relations: (params, { outcomes, invariants, observed }) => {
      const lost = observed.commitsLost ?? 0;
      const replayed = outcomes.REPLAY ?? 0;
      const held = outcomes.HELD ?? 0;
      return [
        ...(outcomes.INDETERMINATE === params.clients
          ? []
          : [
              {
                check: 'outcomes' as const,
                message: `INDETERMINATE ${outcomes.INDETERMINATE ?? 0}, expected ${params.clients}: every first attempt cut off`,
              },
            ]),
        // A retry finds its key exactly when the first attempt committed.
        ...(replayed === lost && held === params.clients - lost
          ? []
          : [
              {
                check: 'outcomes' as const,
                message: `retries REPLAY ${replayed} and HELD ${held}, expected REPLAY ${lost} (the commits lost) and HELD ${params.clients - lost}`,
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
      observed.commitsLost === params.clients
        ? []
        : [`${observed.commitsLost ?? 0} of ${params.clients} commits lost (committed, the client cut off)`],
  },
});
