/**
 * Issue 39 for the payment contract: payments across a failover of an embedded cluster, one run of the
 * real command line for both scenarios and every honest payment design. Synchronously, every payment
 * acknowledged before the failover is on the promoted member under the id first answered
 * (`lostAcknowledged` 0, counted by the cluster checks every contract shares) and each second PAY answers
 * REUSED with that id; asynchronously, exactly the payments acknowledged past the standby are lost and
 * paid anew — measured, never failing the run. Nothing of the clusters is left in the run's TMPDIR.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runJson } from './run-cli.ts';

const HONEST = [
  'payment-on-conflict',
  'payment-advisory-lock',
  'payment-serializable',
  'payment-external-call-inside',
];

const tmp = mkdtempSync(join(tmpdir(), 'reservebench-payment-failover-'));
chmodSync(tmp, 0o755);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('payments across a failover of an embedded cluster', () => {
  it('keeps every acknowledged payment synchronously; loses exactly those past the standby asynchronously', async () => {
    const { run, report } = await runJson(
      inject('serverUrl'),
      [
        '--cluster',
        'embedded',
        '--scenario',
        'payment-failover-sync,payment-failover-async',
        '--strategy',
        HONEST.join(','),
      ],
      { TMPDIR: tmp },
    );
    const byId = new Map(report.payments.map((c) => [c.id, c]));
    for (const design of HONEST) {
      const sync = byId.get(`payment-failover-sync/${design}`);
      expect(sync?.status, `${design}: ${sync?.boundary}`).toBe('pass');
      expect(sync?.lostAcknowledged).toBe(0);
      expect(sync?.outcomes).toEqual({ CREATED: 10, REUSED: 10 });
      expect(sync?.observations).toMatchObject({ createdBefore: 10, reusedSamePayment: 10, createdAgain: 0 });
      expect(sync?.copies?.map((c) => [c.role, c.payments])).toEqual([
        ['survivor', 10],
        ['discarded', 10],
      ]);

      const lossy = byId.get(`payment-failover-async/${design}`);
      expect(lossy?.status, `${design}: ${lossy?.boundary}`).toBe('pass');
      const past = Number(lossy?.observations?.paidPastStandby);
      expect(past).toBeGreaterThan(0);
      expect(lossy?.lostAcknowledged).toBe(past);
      expect(lossy?.observations).toMatchObject({ createdAgain: past, reusedSamePayment: 10 - past });
      expect(lossy?.boundaryNote).toMatch(/^measured in payment-failover-async: /);
      expect(lossy?.boundaryNote).toContain(`lostAcknowledged ${past}: acknowledged payments`);
    }
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(tmp).filter((f) => !f.startsWith('tsx-') && f !== 'reservebench-state')).toEqual([]);
  }, 600_000);
});
