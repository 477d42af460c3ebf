/**
 * The flash-sale lab's kill -9 of the expiry job (and its split-transaction counter-example for a design that
 * splits expiry over two transactions): 10 of 10 held, 5 made
 * expired; a child process runs expire and is killed -9 at its pause point; the parent waits until the
 * backend is gone, reruns expiry (5, then 0) and lets 10 new clients reserve (5 HELD).
 */

import {
  defineScenario,
  expireConcurrently,
  figure,
  LAB_SKU,
  requestsFor,
  SHORT_HOLD_MS,
  TTL_MS,
} from '../harness/scenario/scenario.ts';
import type { PausePoint } from '../strategies/contract.ts';

const EXPIRED = 5;
/** Where the kill lands: between an operation's transactions if it has them, else before its commit. */
const CRASH_POINTS: readonly PausePoint[] = ['between-transactions', 'before-commit'];

type Seen = {
  crashedAt: string;
  availableWhileChildStopped: number;
  childSignal: string;
  availableAfterKill: number;
  rerunUnits: number[];
  newHeld: number;
};

export default defineScenario<Seen>({
  id: 'crash-recovery',
  kind: 'script',
  access: ['child-process'],
  summary: 'expiry killed -9 in a child process before it finishes; rerun twice; then 10 new clients',
  input: { clients: 10, stock: [{ sku: LAB_SKU, total: 10 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  operations: ['expire'],
  requires: [{ operation: 'expire', anyOf: CRASH_POINTS }],
  async run(ctx) {
    const crashAt = CRASH_POINTS.find((p) => ctx.strategy.pausePoints.expire?.includes(p));
    if (!crashAt) throw new Error(`${ctx.strategy.id}'s expire declares none of ${CRASH_POINTS.join(', ')}`);
    const all = requestsFor(ctx.params, 1, ctx.params.clients);
    const held = [...ctx.shortHolds(all.slice(0, EXPIRED), SHORT_HOLD_MS), ...all.slice(EXPIRED)];
    await ctx.reserve(held);
    await ctx.backdate(held.slice(0, EXPIRED).map((r) => r.requestKey));
    const child = await ctx.crash('expire', crashAt);
    if (!('killAndWaitGone' in child)) {
      throw new Error(`expire finished (${JSON.stringify(child.result)}) before ${crashAt}`);
    }
    ctx.observe('crashedAt', child.stage);
    ctx.observe('availableWhileChildStopped', await ctx.available());
    const { signal } = await child.killAndWaitGone();
    ctx.observe('childSignal', signal ?? 'none');
    ctx.observe('availableAfterKill', await ctx.available());
    ctx.observe('rerunUnits', [await expireConcurrently(ctx, 1), await expireConcurrently(ctx, 1)]);
    const fresh = await ctx.reserve(requestsFor(ctx.params, ctx.params.clients + 1, ctx.params.clients));
    ctx.observe('newHeld', fresh.filter((a) => a.outcome === 'HELD').length);
  },
  expect: {
    outcomes: (params) => ({ HELD: params.clients + EXPIRED, SOLD_OUT: params.clients - EXPIRED }),
    observations: () => ({
      childSignal: 'SIGKILL',
      availableWhileChildStopped: 0,
      availableAfterKill: 0,
      rerunUnits: [EXPIRED, 0],
      newHeld: EXPIRED,
    }),
    relations: (params, { invariants }) => figure('active', invariants.active, params.clients),
  },
});
