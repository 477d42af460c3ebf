/**
 * The flash-sale lab's disconnect run: a raw socket sends a complete POST and closes after 100 ms, while the
 * service needs 600 ms. Admitted, the request still runs to its end. The client learns the result by asking
 * (a 404 only means "nothing committed yet"), then replays the POST with the same key: REPLAY, and the stock
 * went down by exactly one.
 */
import { connect } from 'node:net';
import { setTimeout as wait } from 'node:timers/promises';
import { harnessNow } from '../harness/history/recorder.ts';
import { getReservation, postReserve, reserveForm } from '../harness/http/loopback-client.ts';
import { defineScenario, figure, LAB_SKU, requestsFor, TTL_MS } from '../harness/scenario/scenario.ts';
import type { Outcome, ReservationStatus } from '../strategies/contract.ts';

const WORK_MS = 600;
const CLIENT_GIVES_UP_MS = 100;

export default defineScenario<{ lookupAfterDisconnect: string; statusOnceCommitted: string; replay: string }>(
  {
    id: 'disconnect',
    kind: 'script',
    access: ['service'],
    summary:
      'a client sends its POST and disconnects after 100 ms; polls GET, then replays: REPLAY, stock −1',
    input: { clients: 1, stock: [{ sku: LAB_SKU, total: 30 }], user: 'user-0042', ttlMs: TTL_MS, nodes: 1 },
    async run(ctx) {
      const [request] = requestsFor(ctx.params, 1, 1);
      if (!request) throw new Error('no request');
      const gone = { ...request, requestKey: 'req-gone', user: ctx.params.user };
      ctx.sent([gone]);
      await ctx.withService(
        { admission: { limit: 4, maxWaiting: 8, waitMs: 2_000 }, workMs: WORK_MS },
        async (service) => {
          const { port } = new URL(service.url);
          const body = reserveForm(gone);
          const abandonedAt = harnessNow();
          const socket = connect(Number(port), '127.0.0.1');
          await new Promise<void>((resolve) => socket.once('connect', resolve));
          socket.write(
            `POST /reserve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          await wait(CLIENT_GIVES_UP_MS);
          socket.destroy();
          ctx.observe(
            'lookupAfterDisconnect',
            (await getReservation(service.url, gone.requestKey)).fields.status ?? '?',
          );
          let lookups = 1;
          for (;;) {
            const found = await getReservation(service.url, gone.requestKey);
            if (found.code === 200) {
              ctx.observe('statusOnceCommitted', found.fields.status ?? '?');
              break;
            }
            lookups += 1;
            if (lookups > 500) throw new Error('the abandoned reservation never appeared');
            await wait(20);
          }
          const replayedAt = harnessNow();
          const replay = await postReserve(service.url, gone);
          ctx.observe('replay', `${replay.code} ${replay.fields.outcome ?? '?'}`);
          const who = { requestKey: gone.requestKey, user: gone.user, sku: gone.sku, session: 'http' };
          ctx.answered([
            // The client hung up before any answer: it cannot know whether its request took effect.
            { ...who, outcome: 'INDETERMINATE', latencyMs: 0, invokedAt: abandonedAt },
            {
              ...who,
              outcome: (replay.fields.outcome ?? 'ERROR') as Outcome,
              ...(replay.fields.status ? { status: replay.fields.status as ReservationStatus } : {}),
              latencyMs: harnessNow() - replayedAt,
              invokedAt: replayedAt,
              completedAt: harnessNow(),
            },
          ]);
        },
      );
    },
    expect: {
      outcomes: () => ({ REPLAY: 1, INDETERMINATE: 1 }),
      observations: () => ({ statusOnceCommitted: 'HELD', replay: '200 REPLAY' }),
      relations: (params, { invariants }) => [
        ...figure('active', invariants.active, 1, '(exactly one unit taken)'),
        ...figure(
          'available',
          invariants.available,
          (params.stock[0]?.total ?? 0) - 1,
          '(exactly one unit taken)',
        ),
      ],
    },
  },
);
