/**
 * Issue 40's boundary: the shared PostgreSQL gate across a failover of the database holding its permits,
 * on the embedded streaming-replication cluster (docs/scale.md). Two instances, a gate of 2, every permit
 * held by a request inside the primary when it is killed. With the permit rows on the standby
 * (`replicated`) the new primary believes them held by holders that died with the old primary, and admits
 * nobody until their lease has passed; with the standby's link cut first (`unreplicated`, what the gate's
 * unsynchronised commits allow even here) it has them all free at once. Either way the case measures and
 * judges: the gate's bound holds on the new primary (the frozen case), nothing acknowledged is lost and
 * nothing oversold. `placementProblems` is the case's own check that it placed the permits as it claims.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import {
  type GateFailoverResult,
  type PermitPlacement,
  placementProblems,
  runGateFailoverCase,
} from '../harness/contracts/reservation/gate/gate-failover-case.ts';
import {
  embeddedGateCluster,
  type GateFailoverSettings,
  openGateFailoverBed,
} from '../harness/contracts/reservation/gate/gate-failover-setup.ts';
import { DEFAULT_POSTGRES } from '../harness/database/postgres-versions.ts';

const SETTINGS: GateFailoverSettings = { instances: 2, limit: 2, leaseMs: 2_000, waitMs: 300, stock: 40 };

async function measure(placement: PermitPlacement): Promise<GateFailoverResult> {
  const { strategy } = await loadStrategy('hot-row');
  const cluster = await embeddedGateCluster(DEFAULT_POSTGRES);
  const bed = await openGateFailoverBed(strategy, SETTINGS, cluster, true);
  try {
    return await runGateFailoverCase(bed, SETTINGS, placement, 60_000);
  } finally {
    await bed.close();
  }
}

describe('the shared PostgreSQL gate across a failover of its database', () => {
  const results: Partial<Record<PermitPlacement, GateFailoverResult>> = {};
  beforeAll(async () => {
    results.replicated = await measure('replicated');
    results.unreplicated = await measure('unreplicated');
  }, 240_000);

  it('with the permits on the standby: nobody admitted until the dead holders’ lease has passed', () => {
    const r = results.replicated;
    expect(r?.problems).toEqual([]);
    expect(r?.insideBeforeFailover).toBe(SETTINGS.limit);
    expect(r?.permitsOnNewPrimary).toBe(SETTINGS.limit);
    // Every permit held by a holder gone with the old primary: the first request after it is refused.
    expect(r?.refusedBeforeAdmission).toBeGreaterThan(0);
    expect(r?.after.insideAtOnce).toBe(SETTINGS.limit);
    expect(r?.maxInsideAfter).toBeLessThanOrEqual(SETTINGS.limit);
    expect([r?.lostAcknowledged, r?.oversold]).toEqual([0, 0]);
  });

  it('with the permits on the old primary alone: all free on the new one, the bound still held', () => {
    const r = results.unreplicated;
    expect(r?.problems).toEqual([]);
    expect(r?.insideBeforeFailover).toBe(SETTINGS.limit);
    expect(r?.permitsOnNewPrimary).toBe(0);
    expect(r?.after.insideAtOnce).toBe(SETTINGS.limit);
    expect(r?.maxInsideAfter).toBeLessThanOrEqual(SETTINGS.limit);
    expect([r?.lostAcknowledged, r?.oversold]).toEqual([0, 0]);
  });

  it('fails as not exercised where the permits were not where the placement says', () => {
    expect(placementProblems('replicated', 0)).toEqual([
      'not exercised: no permit held before the failover was held on the new primary',
    ]);
    expect(placementProblems('unreplicated', 2)).toEqual([
      'not exercised: 2 permit(s) reached the new primary across the cut link',
    ]);
    expect([placementProblems('replicated', 2), placementProblems('unreplicated', 0)]).toEqual([[], []]);
  });
});
