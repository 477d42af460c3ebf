import { readFileSync } from 'node:fs';
/**
 * The foundation's promises, checked through the real command line against a real embedded PostgreSQL:
 * exact outcome counts, invariants, the gate's exit codes.
 */
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

describe('contention (150 clients, 40 stock, one barrier)', () => {
  it('hot-row holds 40 and sells out the rest; check-then-act is caught overselling; run ok, exit 0', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'contention',
      '--strategy',
      'hot-row,check-then-act',
    ]);
    const hot = measured(report.cases, 'contention/hot-row');
    expect(hot.status).toBe('pass');
    expect(hot.outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(hot.invariants).toMatchObject({ total: 40, available: 0, active: 40, drift: 0, oversold: 0 });
    expect(hot.invariants).toMatchObject({ duplicateActive: 0, duplicateKey: 0, lostAcknowledged: 0 });
    expect(hot.invariants.unacknowledgedActive).toBe(0);
    expect(hot.invariants.falseSoldOut).toBe(0);

    const control = measured(report.cases, 'contention/check-then-act');
    expect(control.expect).toBe('violate');
    expect(control.status).toBe('pass');
    // Every client read 40 before any wrote (the after-read barrier): all 150 are told HELD.
    expect(control.outcomes).toEqual({ HELD: 150 });
    expect(control.invariants.oversold).toBe(110);
    expect(control.invariants.drift).toBe(40 - 39 - 150);

    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
    // Durable unless told otherwise: the run database's sessions all wait for their WAL flush.
    expect(report.environment.settings.synchronous_commit).toBe('on');
    expect(report.boundary.map((b) => b.strategy)).toEqual(['hot-row', 'check-then-act']);
    expect(report.boundary[1]?.shownBy).toBe('contention/check-then-act');
  });
});

describe('durability reaches every session', () => {
  const probe = (durability: string, expected: string) =>
    runJson(
      serverUrl,
      [
        '--durability',
        durability,
        '--scenario',
        'contention',
        '--strategy',
        'test/fixtures/durability-probe.ts',
      ],
      { RESERVEBENCH_TEST_DURABILITY: expected },
    );

  it.each(['on', 'off'])(
    'with --durability %s a design session commits so (the fixture refuses to book otherwise)',
    async (durability) => {
      const { run, report } = await probe(durability, durability);
      const probed = measured(report.cases, 'contention/durability-probe');
      expect(probed.outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
      expect(run.code, run.stderr).toBe(0);
    },
  );

  it('the probe can fail: sessions that commit otherwise than expected fail the run with errors', async () => {
    const { run, report } = await probe('off', 'on');
    const probed = measured(report.cases, 'contention/durability-probe');
    expect(probed.status).toBe('fail');
    expect(probed.fired).toContain('errors');
    expect(run.code).toBe(1);
  });
});

describe('idempotency and per-user limit on hot-row', () => {
  it('duplicate-key gives HELD 1 + REPLAY 15 in 20 runs in a row, with commits not durable too', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'duplicate-key',
      '--strategy',
      'hot-row',
      '--repeat',
      '20',
      '--durability',
      'off',
    ]);
    expect(report.environment.settings.synchronous_commit).toBe('off');
    expect(report.cases).toHaveLength(20);
    for (const c of report.cases) {
      expect(c.outcomes, c.id).toEqual({ HELD: 1, REPLAY: 15 });
      expect(c.invariants, c.id).toMatchObject({ active: 1, available: 39, drift: 0, duplicateKey: 0 });
    }
    expect(run.code).toBe(0);
  });

  it('user-limit gives HELD 1 + USER_LIMIT 7; key-reuse gives KEY_REUSED and writes nothing', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['hot-row']);
    const limit = measured(report.cases, 'user-limit/hot-row');
    expect(limit.outcomes).toEqual({ HELD: 1, USER_LIMIT: 7 });
    expect(limit.invariants).toMatchObject({ active: 1, drift: 0, duplicateActive: 0 });
    const reuse = measured(report.cases, 'key-reuse/hot-row');
    expect(reuse.outcomes).toEqual({ HELD: 1, KEY_REUSED: 2 });
    // Two skus of 40: only the first reservation exists, the second sku is untouched.
    expect(reuse.invariants).toMatchObject({
      total: 80,
      available: 79,
      active: 1,
      drift: 0,
      duplicateKey: 0,
    });
    expect(run.code).toBe(0);
  });

  it('applies --clients and --stock to the fixture', async () => {
    const { report } = await runJson(serverUrl, [
      '--scenario',
      'contention',
      '--strategy',
      'hot-row',
      '--clients',
      '30',
      '--stock',
      '12',
    ]);
    const c = measured(report.cases, 'contention/hot-row');
    expect(c.outcomes).toEqual({ HELD: 12, SOLD_OUT: 18 });
    expect(c.invariants).toMatchObject({ total: 12, active: 12, available: 0, drift: 0 });
  });
});

describe('the gate', () => {
  it('fails the run (exit 1, ok false) when a strategy that oversells declares expect: hold', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'contention',
      '--strategy',
      'test/fixtures/oversell-declared-safe.ts',
    ]);
    const c = measured(report.cases, 'contention/oversell-declared-safe');
    expect(c.status).toBe('fail');
    expect(c.invariants.oversold).toBeGreaterThan(0);
    expect(c.problems.length).toBeGreaterThan(0);
    expect(c.keptSchema).toBeDefined();
    expect(report.ok).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('kept database reservebench_');
  });

  it('reports a negative control outside its scenarios as n/a with the reason', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { report } = await defaultRunOf(['check-then-act']);
    const c = report.cases.find((x) => x.scenario === 'key-reuse');
    expect(c?.status).toBe('n/a');
    expect(c && 'reason' in c ? c.reason : '').toMatch(/contention/);
    // Caught where it must be: the run judged something, and passes.
    expect(report.cases.find((x) => x.scenario === 'contention')?.status).toBe('pass');
    expect(report.ok).toBe(true);
  });

  it('fails a run in which that n/a is the only case: it judged nothing', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'key-reuse',
      '--strategy',
      'check-then-act',
    ]);
    expect(report.cases.map((c) => c.status)).toEqual(['n/a']);
    expect(report.ok).toBe(false);
    expect(run.code).toBe(1);
  });
});

describe('a strategy given as a module path (the README example)', () => {
  it('runs through the same scenarios and audit as a built-in one', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'contention,duplicate-key,user-limit',
      '--strategy',
      'test/fixtures/lock-first.ts',
    ]);
    expect(measured(report.cases, 'contention/lock-first').outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(measured(report.cases, 'duplicate-key/lock-first').outcomes).toEqual({ HELD: 1, REPLAY: 15 });
    expect(measured(report.cases, 'user-limit/lock-first').outcomes).toEqual({ HELD: 1, USER_LIMIT: 7 });
    expect(run.code).toBe(0);
  });
});

describe('README', () => {
  it('docs/contract.md shows the strategy example exactly as the tested fixture has it', () => {
    const readme = readFileSync(new URL('../docs/contract.md', import.meta.url), 'utf8');
    const fixture = readFileSync(new URL('./fixtures/lock-first.ts', import.meta.url), 'utf8');
    const body = fixture.slice(fixture.indexOf('\n') + 1);
    expect(readme).toContain(body.trim());
  });

  it('opens with the two commands a new user types', () => {
    const head = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
      .split('\n')
      .slice(0, 8)
      .join('\n');
    expect(head).toContain('npm ci && npm start');
    expect(head).toContain('npm test');
  });
});
