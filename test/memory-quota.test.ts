/**
 * memory-quota: in-memory shares per node with a sales ledger. Restarts discard a node's memory (a new
 * incarnation); the crash is a real SIGKILL of a child process between memory and ledger.
 */
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

describe('restart (2 nodes × 20 of 40; node-1 sells out, restarts, sells again)', () => {
  it('rebuilding from the ledger sells exactly 40; restarting from the configured share is caught at 60 of 40', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['memory-quota', 'memory-quota-config-restart']);
    const safe = measured(report.cases, 'restart/memory-quota');
    expect(safe.status).toBe('pass');
    expect(safe.outcomes).toEqual({ HELD: 40, SOLD_OUT: 80 });
    expect(safe.observations).toEqual({ heldBeforeRestart: 40, heldAfterRestart: 0 });
    expect(safe.invariants).toMatchObject({ total: 40, active: 40, available: 0, oversold: 0, drift: 0 });

    const control = measured(report.cases, 'restart/memory-quota-config-restart');
    expect(control).toMatchObject({ expect: 'violate', status: 'pass' });
    expect(control.observations).toEqual({ heldBeforeRestart: 40, heldAfterRestart: 20 });
    expect(control.invariants).toMatchObject({ total: 40, active: 60, oversold: 20 });
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  });
});

describe('node-crash (killed -9 after the memory decrement, before the ledger insert)', () => {
  it('loses no unit when the node rebuilds from the ledger; the config-restart variant oversells', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['memory-quota', 'memory-quota-config-restart']);
    const safe = measured(report.cases, 'node-crash/memory-quota');
    expect(safe.status).toBe('pass');
    expect(safe.observations).toEqual({
      crashedAt: 'after-memory-before-ledger',
      childSignal: 'SIGKILL',
      unitsLost: 0,
      oversoldAfterCrash: 0,
    });
    expect(safe.outcomes).toEqual({ HELD: 20, SOLD_OUT: 19 });
    expect(safe.invariants).toMatchObject({ total: 20, active: 20, available: 0, drift: 0, oversold: 0 });

    const control = measured(report.cases, 'node-crash/memory-quota-config-restart');
    expect(control).toMatchObject({ expect: 'violate', status: 'pass' });
    expect(control.observations).toMatchObject({
      childSignal: 'SIGKILL',
      unitsLost: 0,
      oversoldAfterCrash: 10,
    });
    expect(control.invariants).toMatchObject({ active: 30, oversold: 10 });
    const rows = new Map(report.boundary.map((b) => [b.strategy, b]));
    expect(rows.get('memory-quota-config-restart')?.boundary).toMatch(/^caught: oversold/);
    expect(rows.get('memory-quota')?.boundary).toMatch(
      /undersell after crash: none \(node-crash\/memory-quota\)/,
    );
    expect(run.code).toBe(0);
  });
});

describe('memory-quota replays', () => {
  it('duplicate-key gives HELD 1 + REPLAY 15 in 20 runs in a row (no deadlock between a sale and a replay)', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'duplicate-key',
      '--strategy',
      'memory-quota',
      '--repeat',
      '20',
    ]);
    expect(report.cases.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.boundary}`)).toEqual([]);
    for (const c of report.cases) expect(c.outcomes, c.id).toEqual({ HELD: 1, REPLAY: 15 });
    expect(run.code).toBe(0);
  });
});

describe('memory-quota under the foundation scenarios', () => {
  it('holds 40 of 150, replays a duplicate key, limits a user', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['memory-quota']);
    expect(measured(report.cases, 'contention/memory-quota').outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(measured(report.cases, 'contention/memory-quota').invariants).toMatchObject({
      drift: 0,
      oversold: 0,
    });
    expect(measured(report.cases, 'duplicate-key/memory-quota').outcomes).toEqual({ HELD: 1, REPLAY: 15 });
    expect(measured(report.cases, 'user-limit/memory-quota').outcomes).toEqual({ HELD: 1, USER_LIMIT: 7 });
    expect(run.code).toBe(0);
  });
});
