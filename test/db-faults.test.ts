/**
 * Database faults: the server crashed under load (db-crash: durable with synchronous_commit = on, the
 * loss measured with it off), backends terminated mid-transaction, and a control only a crash catches.
 * db-crash needs a server the run can restart, so it runs on the CLI's own embedded server here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Report } from '../harness/report/report.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf } from './default-run.ts';
import { measured, runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

async function runEmbedded(args: string[]): Promise<{ code: number | null; report: Report; stderr: string }> {
  const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
  try {
    const run = await runCli(['run', '--json', '--reports', reports, '--explore-budget', '0', ...args]);
    try {
      return { code: run.code, report: JSON.parse(run.stdout) as Report, stderr: run.stderr };
    } catch {
      throw new Error(`no JSON on stdout (exit ${run.code}): ${run.stderr}`);
    }
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

describe('db-crash (immediate shutdown under 40 clients in a closed loop, then restart)', () => {
  it('loses no acknowledged hold with synchronous_commit = on; measures the loss with it off; catches async-commit', async () => {
    // false-sold-out runs beside the crashes (they have a server of their own): none of its sessions is cut.
    const { code, report } = await runEmbedded([
      '--scenario',
      'db-crash,db-crash-async,false-sold-out',
      '--strategy',
      'hot-row,skip-locked-slots,memory-quota,async-commit',
    ]);
    expect(code).toBe(0);
    for (const strategy of ['hot-row', 'skip-locked-slots', 'memory-quota']) {
      const c = measured(report.cases, `db-crash/${strategy}`);
      expect(c.status, strategy).toBe('pass');
      expect(c.invariants).toMatchObject({
        lostAcknowledged: 0,
        drift: 0,
        oversold: 0,
        unacknowledgedActive: 0,
      });
      // Every request the crash cut off is explained by the final read: committed or not.
      const cut = c.outcomes.INDETERMINATE ?? 0;
      expect(cut).toBeGreaterThan(0);
      expect(
        (c.finalRead.indeterminate?.committed ?? 0) + (c.finalRead.indeterminate?.notCommitted ?? 0),
      ).toBe(cut);
      expect(c.observations).toMatchObject({ heldAfterRestart: 10 });
      const off = measured(report.cases, `db-crash-async/${strategy}`);
      expect(off.status, strategy).toBe('pass');
      expect(off.boundaryNote).toMatch(/^measured in db-crash-async: /);
    }
    for (const strategy of ['hot-row', 'skip-locked-slots', 'memory-quota'])
      expect(measured(report.cases, `false-sold-out/${strategy}`).status, strategy).toBe('pass');
    const control = measured(report.cases, 'db-crash/async-commit');
    expect(control).toMatchObject({ expect: 'violate', status: 'pass' });
    // Nothing flushed the WAL before the crash: every hold acknowledged before it is gone, none after it.
    expect(control.invariants.lostAcknowledged).toBe(control.observations?.heldBeforeRestart);
    expect(control.observations?.heldBeforeRestart).toBeGreaterThanOrEqual(40);
  });

  it('is n/a, with the reason, on a server given by URL', async () => {
    const { report } = await runJson(serverUrl, ['--scenario', 'db-crash', '--strategy', 'hot-row']);
    expect(report.cases[0]).toMatchObject({ status: 'n/a', coverage: { missing: [] } });
    expect(report.cases[0] && 'reason' in report.cases[0] ? report.cases[0].reason : '').toMatch(
      /no way to restart/,
    );
  });
});

describe('payment-db-crash (immediate shutdown while a pay is held before its commit, then the retry)', () => {
  it('rolls the held pay back: the retry creates the one payment, and the history admits the crash', async () => {
    const designs = ['payment-on-conflict', 'payment-advisory-lock', 'payment-serializable'];
    const { code, report } = await runEmbedded([
      '--scenario',
      'payment-db-crash',
      '--strategy',
      designs.join(','),
    ]);
    expect(code, JSON.stringify(report.payments.map((c) => c.problems))).toBe(0);
    for (const design of designs) {
      const c = report.payments.find((p) => p.id === `payment-db-crash/${design}`);
      expect(c, design).toMatchObject({
        status: 'pass',
        outcomes: { INDETERMINATE: 1, CREATED: 1 },
        counts: { payments: 1, outbox: 1 },
        history: { status: 'linearizable' },
      });
    }
  });

  it('fails for outcomes alone when the held pay had already committed: the retry is REUSED', async () => {
    const fixture = 'test/fixtures/checks/payment-commits-before-pause.ts';
    const { code, report, stderr } = await runEmbedded([
      '--scenario',
      'payment-db-crash',
      '--strategy',
      fixture,
    ]);
    expect(code).toBe(1);
    // Its tables are on the server the crash cases run on: that server's data is kept, the run's own not.
    const keptData = stderr.match(/^kept the embedded server's data in /gm) ?? [];
    expect(keptData).toHaveLength(1);
    expect(report.payments[0]?.keptSchema).toBeDefined();
    expect(report.payments[0]).toMatchObject({
      status: 'fail',
      fired: ['outcomes'],
      outcomes: { INDETERMINATE: 1, REUSED: 1 },
      counts: { payments: 1, outbox: 1 },
    });
  });

  it('is n/a, with the reason, on a server given by URL', async () => {
    const { report } = await runJson(serverUrl, [
      '--scenario',
      'payment-db-crash',
      '--strategy',
      'payment-on-conflict',
    ]);
    expect(report.payments[0]).toMatchObject({
      status: 'n/a',
      reason: expect.stringMatching(/no way to restart/),
    });
  });
});

describe('backend-killed (pg_terminate_backend at before-commit and after-read)', () => {
  it('answers INDETERMINATE, rolls their work back and serves a later buyer with the unit', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'backend-killed',
      '--strategy',
      'hot-row,skip-locked-slots,memory-quota',
      '--repeat',
      '3',
    ]);
    expect(run.code).toBe(0);
    for (const c of report.cases) {
      const m = measured(report.cases, c.id);
      expect(m.outcomes, c.id).toEqual({ HELD: 1, INDETERMINATE: 2 });
      expect(m.invariants, c.id).toMatchObject({ total: 1, active: 1, drift: 0, oversold: 0 });
      expect(m.finalRead.indeterminate, c.id).toEqual({ committed: 0, notCommitted: 2 });
      expect(Object.keys(m.sqlstates ?? {}).every((s) => s === '57P01' || s === '08006')).toBe(true);
    }
  });
});

describe('commit-ack-lost (a proxy cuts the answer to the commit of the reservation)', () => {
  it('loses every commit answer, and every retry with the same key replays it, on every safe design', {
    timeout: DEFAULT_RUN_TIMEOUT_MS,
  }, async () => {
    const { run, report } = await defaultRunOf(['hot-row', 'skip-locked-slots', 'memory-quota']);
    expect(run.code).toBe(0);
    for (const strategy of ['hot-row', 'skip-locked-slots', 'memory-quota']) {
      const c = measured(report.cases, `commit-ack-lost/${strategy}`);
      expect(c.status, strategy).toBe('pass');
      // memory-quota's node registration (an autocommit INSERT of its share) comes first on the
      // connection; the cut still lands on the COMMIT of the sale.
      expect(c.outcomes, strategy).toEqual({ REPLAY: 5, INDETERMINATE: 5 });
      expect(c.invariants).toMatchObject({ total: 10, active: 5, available: 5, drift: 0, oversold: 0 });
      expect(c.observations, strategy).toEqual({ commitsLost: 5 });
    }
  });

  it('cuts the COMMIT, not the autocommit lookup a design begins each reserve with', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'commit-ack-lost',
      '--strategy',
      'test/fixtures/lookup-before-begin.ts',
    ]);
    expect(run.code).toBe(0);
    const c = measured(report.cases, 'commit-ack-lost/lookup-before-begin');
    expect(c.status).toBe('pass');
    // Had the lookup lost its answer, nothing would have been written and the retry would answer HELD.
    expect(c.phases).toEqual([
      { label: 'reserve', outcomes: { INDETERMINATE: 5 } },
      { label: 'replay', outcomes: { REPLAY: 5 } },
    ]);
    expect(c.observations).toEqual({ commitsLost: 5 });
  });
});
