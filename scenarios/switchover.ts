/**
 * A switchover under load, replication synchronous: the primary hands over to its standby as a manager
 * runs one (`patronictl switchover`, `pg_autoctl perform switchover`) and follows it as a standby. Nothing
 * acknowledged may be lost or sold twice, and the requests it cut off must be answered as the contract
 * says when retried: REPLAY for each that had taken effect. It is placed so that some had: the standby's
 * link is cut once it has replayed the first 10 holds, a commit then waits there for it (flushed on the
 * primary, unanswered), and the switchover ends the primary's sessions — that waiting commit's client gets
 * `57P01` — before the link heals and the standby, having replayed everything, is promoted. A design whose
 * retry of a key that took effect answers anything but REPLAY is caught here (`outcomes`).
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';
import { FAILOVER_FAULTS, type FailoverSeen, failoverUnderLoad, retryProblems } from './failover-sync.ts';

export default defineScenario<FailoverSeen>({
  id: 'switchover',
  kind: 'script',
  summary:
    'the primary switches over to its standby under 10 clients: cut-off requests that took effect REPLAY',
  input: {
    clients: 10,
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  cluster: { replication: 'sync', standbys: 1, faults: ['switchover'] },
  sessionSettings: { synchronous_commit: 'on' },
  run: failoverUnderLoad('sync', { fault: 'switchover' }),
  expect: {
    faults: FAILOVER_FAULTS,
    relations: (_params, { observed }) => retryProblems(observed),
    exercised: (_params, { outcomes, observed }) => [
      ...(outcomes.INDETERMINATE || observed.heldBeforeFailover !== undefined
        ? []
        : ['the switchover cut no request off']),
      ...((observed.waitingOnStandby ?? 0) === 0 || (observed.unknownTookEffect ?? 0) > 0
        ? []
        : ['no cut-off request had taken effect on the new primary']),
      ...((observed.heldAfterFailover ?? 0) > 0 ? [] : ['no hold on the new primary']),
    ],
  },
});
