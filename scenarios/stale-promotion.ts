/**
 * A stale standby promoted: replication is synchronous to one standby (member2, `FIRST 1 (member2)`) and
 * asynchronous to a second (member3), whose link is cut once it has replayed the first 10 holds. The
 * primary goes on acknowledging — member2 confirms every commit — and once 5 more holds are acknowledged
 * it is killed and member3, the stale one, is promoted instead of member2: a manager that promotes
 * whichever standby answers first, or a `maximum_lag_on_failover` set too wide. Synchronous replication
 * promised nothing about member3: the acknowledged holds it lacks are lost (`lostAcknowledged`), their units
 * sold again on it (`oversold` across the copies). Measured per design, as failover-async is; never failing
 * the run.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';
import { FAILOVER_FAULTS, type FailoverSeen, failoverUnderLoad, retryProblems } from './failover-sync.ts';

export default defineScenario<FailoverSeen>({
  id: 'stale-promotion',
  kind: 'script',
  summary:
    'synchronous to member2, but member3, cut off and stale, is promoted: acknowledged holds lost, measured',
  input: {
    clients: 10,
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  cluster: { replication: 'sync', standbys: 2, faults: ['failover', 'partition', 'promote-stale'] },
  sessionSettings: { synchronous_commit: 'on' },
  run: failoverUnderLoad('sync', { promote: 'stale' }),
  expect: {
    faults: FAILOVER_FAULTS,
    boundaryChecks: ['lostAcknowledged', 'oversold', 'linearizable', 'drift', 'auditMismatch'],
    relations: (_params, { observed }) => retryProblems(observed),
    exercised: (_params, { observed }) => [
      ...((observed.heldPastStandby ?? 0) > 0 ? [] : ['no hold acknowledged past the stale standby']),
      ...((observed.heldAfterFailover ?? 0) > 0 ? [] : ['no hold on the promoted member']),
    ],
  },
});
