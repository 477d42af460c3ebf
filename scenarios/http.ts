/**
 * The flash-sale lab's HTTP admission run: 120 clients arrive together at the HTTP service (admission 4:8,
 * 400 ms wait, 30 ms work, 30 units). A 503 only ever comes before the database was touched, so each client
 * retries with the same key until it gets 201 or 409. Stable: 30 × 201, 90 × 409, admitted exactly once per
 * client, every 503 matched by a rejection counter, in flight ≤ 4, waiting ≤ 8. How many 503s there are is
 * the scheduler's.
 */
import { setTimeout as backOff } from 'node:timers/promises';
import type { RequestResult } from '../harness/driver/client-task.ts';
import { postReserve } from '../harness/http/loopback-client.ts';
import {
  defineScenario,
  exactly,
  firstSku,
  LAB_SKU,
  type Problem,
  requestsFor,
  TTL_MS,
} from '../harness/scenario/scenario.ts';
import type { Outcome } from '../strategies/contract.ts';

const ADMISSION = { limit: 4, maxWaiting: 8, waitMs: 400 };
const WORK_MS = 30;
/**
 * A client that got 503 waits 20 ms × its attempt before retrying with the same key (the flash-sale lab's
 * HTTP admission run).
 */
const BACKOFF_STEP_MS = 20;

type Seen = {
  finalCodes: Record<string, number>;
  responses503: number;
  admission: Record<string, number>;
};

export default defineScenario<Seen>({
  id: 'http',
  kind: 'script',
  access: ['service'],
  // The service's two pools, one per gate: the clients reach the database through them only.
  connections: 2 * ADMISSION.limit,
  summary: '120 clients at once over HTTP behind admission 4:8; 503s retried with the same key',
  input: { clients: 120, stock: [{ sku: LAB_SKU, total: 30 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 1 },
  async run(ctx) {
    await ctx.withService({ admission: ADMISSION, workMs: WORK_MS }, async (service) => {
      let responses503 = 0;
      const requests = requestsFor(ctx.params, 1, ctx.params.clients);
      ctx.sent(requests);
      const finals = await Promise.all(
        requests.map(async (request) => {
          for (let attempt = 1; ; attempt++) {
            const answer = await postReserve(service.url, request);
            if (answer.code !== 503) return { request, answer };
            responses503 += 1;
            await backOff(BACKOFF_STEP_MS * attempt);
          }
        }),
      );
      const codes: Record<string, number> = {};
      for (const { answer } of finals) codes[answer.code] = (codes[answer.code] ?? 0) + 1;
      ctx.answered(
        finals.map(
          ({ request, answer }): RequestResult => ({
            requestKey: request.requestKey,
            user: request.user,
            sku: request.sku,
            outcome: (answer.fields.outcome ?? 'ERROR') as Outcome,
            latencyMs: 0,
          }),
        ),
      );
      const c = service.counters();
      ctx.observe('finalCodes', codes);
      ctx.observe('responses503', responses503);
      ctx.observe('admission', {
        admitted: c.admitted,
        admittedAfterWait: c.admittedAfterWait,
        rejectedQueueFull: c.rejectedQueueFull,
        rejectedWaitTimeout: c.rejectedWaitTimeout,
        maxInFlightSeen: c.maxInFlightSeen,
        maxWaitingSeen: c.maxWaitingSeen,
      });
    });
  },
  expect: {
    relations(params, { observed }) {
      const stock = firstSku(params).total;
      const gate = observed.admission ?? {};
      const problems: string[] = [];
      if (gate.admitted !== params.clients)
        problems.push(`admitted ${gate.admitted}, expected once per client`);
      const rejections = (gate.rejectedQueueFull ?? 0) + (gate.rejectedWaitTimeout ?? 0);
      if (observed.responses503 !== rejections)
        problems.push(`${observed.responses503} 503s but ${rejections} rejections`);
      if ((gate.maxInFlightSeen ?? 0) > ADMISSION.limit) problems.push(`in flight ${gate.maxInFlightSeen}`);
      if ((gate.maxWaitingSeen ?? 0) > ADMISSION.maxWaiting) problems.push(`waiting ${gate.maxWaitingSeen}`);
      return [
        ...exactly({ 201: stock, 409: params.clients - stock }, observed.finalCodes ?? {}),
        ...problems.map((message): Problem => ({ check: 'observations', message })),
      ];
    },
  },
});
