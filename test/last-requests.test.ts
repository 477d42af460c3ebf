/**
 * DriveOptions.lastAfter: every client's last request waits until the harness says so (db-crash holds
 * them back until its crash has come), and is sent then.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStrategy, STRATEGY_IMPORTER } from '../harness/contracts/reservation/designs/registry.ts';
import { ClientPool } from '../harness/contracts/reservation/driver/client-pool.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db, admin } = useRunDatabase();
const pool = new ClientPool(2);
afterAll(() => pool.close());

const SKU = 'sku-last';
const TOTAL = 20;

describe('the last requests held back', () => {
  it('are sent only once lastAfter settles, every earlier one already answered', async () => {
    const ref = await loadStrategy('hot-row');
    const schema = await db().createCaseSchema('last_requests');
    await admin().query(`SET search_path TO ${schema}`);
    await ref.strategy.setup(admin(), [{ sku: SKU, total: TOTAL }]);
    const remaining = () => ref.strategy.remaining(admin(), SKU);
    let open: () => void = () => undefined;
    const lastAfter = new Promise<void>((resolve) => {
      open = resolve;
    });
    const clients = [0, 1, 2].map((index) => ({
      index,
      requests: [1, 2].map((n) => ({
        requestKey: `k-${index}-${n}`,
        user: `u-${index}-${n}`,
        sku: SKU,
        ttlMs: 60_000,
      })),
    }));
    const driving = pool.drive({
      strategyModuleUrl: ref.moduleUrl,
      strategyImporter: STRATEGY_IMPORTER,
      connection: { connectionString: db().connectionString, schema },
      clients,
      nodes: 1,
      lastAfter,
      timeoutMs: 30_000,
    });
    // Observed, not slept on: the first request of every client has taken its unit.
    while ((await remaining()) > TOTAL - 3) await nextLook(5);
    // No last request has gone out: the gate still holds them.
    expect(await remaining()).toBe(TOTAL - 3);
    open();
    const answered = await driving;
    expect(answered.flatMap((c) => c.results.map((r) => r.outcome))).toEqual(Array(6).fill('HELD'));
    expect(await remaining()).toBe(TOTAL - 6);
    await admin().query('RESET search_path');
  });

  it("keep a drive queued behind them waiting with its case's clock paused until its turn", async () => {
    const ref = await loadStrategy('hot-row');
    const schema = await db().createCaseSchema('queued_drive');
    await admin().query(`SET search_path TO ${schema}`);
    await ref.strategy.setup(admin(), [{ sku: SKU, total: TOTAL }]);
    const remaining = () => ref.strategy.remaining(admin(), SKU);
    let open: () => void = () => undefined;
    const lastAfter = new Promise<void>((resolve) => {
      open = resolve;
    });
    const connection = { connectionString: db().connectionString, schema };
    const request = (key: string) => ({ requestKey: key, user: `u-${key}`, sku: SKU, ttlMs: 60_000 });
    const first = pool.drive({
      strategyModuleUrl: ref.moduleUrl,
      strategyImporter: STRATEGY_IMPORTER,
      connection,
      clients: [{ index: 0, requests: [request('a-1'), request('a-2')] }],
      nodes: 1,
      lastAfter,
      timeoutMs: 30_000,
    });
    while ((await remaining()) > TOTAL - 1) await nextLook(5);
    const clock: string[] = [];
    const queued = pool.drive({
      strategyModuleUrl: ref.moduleUrl,
      strategyImporter: STRATEGY_IMPORTER,
      connection,
      clients: [{ index: 0, requests: [request('b-1')] }],
      nodes: 1,
      timeoutMs: 30_000,
      queueClock: { pause: () => clock.push('pause'), resume: () => clock.push('resume') },
    });
    // The first drive is held at its gate: the second has not started, and its clock is stopped.
    expect(await remaining()).toBe(TOTAL - 1);
    expect(clock).toEqual(['pause']);
    open();
    await first;
    const answered = await queued;
    expect(answered.flatMap((c) => c.results.map((r) => r.outcome))).toEqual(['HELD']);
    expect(clock).toEqual(['pause', 'resume']);
    await admin().query('RESET search_path');
  });
});
