/**
 * Issue 39 item 4, the explorer choosing a failover: with a synchronous embedded cluster
 * (`explore --cluster embedded`) its failover programs cut the standby's link, send an operation, kill the
 * primary once it has answered or its commit waits on the standby, promote the standby and go on there.
 * hot-row explores clean; local-commit (HELD once the commit is on the primary alone) is found for
 * lostAcknowledged, and its spec fails again on replay; without a cluster it is out of the explorer's
 * reach, with the reason read from its caughtBy. A failover program that breaks (a release that never
 * answers on the cluster) breaks the case, though the other program ran to its end. The budgets are the smallest that run every failover
 * program (no scope, no random program).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedClusters } from '../harness/cluster/cluster-source.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import { exploreCase } from '../harness/explore/explore-case.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db } = useRunDatabase();
const reports = mkdtempSync(join(tmpdir(), 'reservebench-explore-failover-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

async function explored(id: string, cluster: boolean, timeoutMs = 30_000) {
  const ref = await RESERVATION.designs.load(id);
  const target = { explore: RESERVATION.explore, ref, design: RESERVATION.designs.info(ref).design };
  const settings = {
    keepFailed: false,
    timeoutMs,
    permutations: 'listed' as const,
    ...(cluster ? { failoverCluster: embeddedClusters(18, 'on') } : {}),
  };
  return exploreCase(db(), target, settings, {
    seed: 2026,
    budget: { scope: 0, programs: 0, shrinkRuns: 0 },
    specDir: join(reports, 'explore'),
    replays: 1,
  });
}

describe('the explorer fails programs over on a synchronous cluster', () => {
  it('explores hot-row clean across its failovers', async () => {
    const result = await explored('hot-row', true);
    expect(result.status, result.boundary).toBe('pass');
    expect(result.boundary).toMatch(/explored: no finding \(\d+ failed over, /);
  }, 300_000);

  it('finds local-commit for lostAcknowledged, and its spec fails again', async () => {
    const result = await explored('local-commit', true);
    expect(result.status, result.boundary).toBe('pass');
    expect(result.boundary).toMatch(/caught by the explorer found \(failover program \d+ of \d+;/);
    expect('fired' in result ? result.fired : []).toContain('lostAcknowledged');
    expect(result.boundary).toMatch(/failed 1 of 1 replays/);
  }, 300_000);

  it('breaks when one failover program breaks, though the others ran to their end', async () => {
    // The release in flight is given up on after timeoutMs: the shortest that leaves the sale room.
    const result = await explored('test/fixtures/release-stuck-on-cluster.ts', true, 15_000);
    expect(result.status, result.boundary).toBe('broken');
    expect(result.boundary).toMatch(
      /^not exercised: failover program 2 of 2 broke: .*in flight at the failover\) did not complete/,
    );
    expect(result.boundary).toMatch(/\(1 failed over, /);
  }, 600_000);

  it('without a cluster, says local-commit is out of its reach', async () => {
    const result = await explored('local-commit', false);
    expect(result.status).toBe('n/a');
    expect(result.boundary).toMatch(/out of the explorer's reach: .*only on a cluster \(failover-sync\)/);
  });
});
