/**
 * failover-sync with asynchronous replication (PostgreSQL's default, and Patroni's): a commit is
 * acknowledged once the primary has flushed it, whatever its standby has. The same drive: the standby's
 * link is cut once it has replayed the first 10 holds, the primary goes on acknowledging holds the standby
 * will never see, and once 5 have been it is killed and the standby promoted. The holds it acknowledged
 * past the standby are lost (`lostAcknowledged`, against the promoted member), their units sold again on it
 * (`oversold` across the copies: the old primary still holds them), and the history has answers no order
 * explains. Measured per design as the boundary of asynchronous replication (as db-crash-async measures
 * synchronous_commit = off), never failing the run: what a design keeps outside the database (a node's
 * memory) decides how much of it is resold.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';
import { FAILOVER_FAULTS, type FailoverSeen, failoverUnderLoad, retryProblems } from './failover-sync.ts';

export default defineScenario<FailoverSeen>({
  id: 'failover-async',
  kind: 'script',
  summary:
    'the primary fails over under 10 clients, replication asynchronous: acknowledged holds lost and resold, measured',
  input: {
    clients: 10,
    stock: [{ sku: LAB_SKU, total: 40 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  cluster: { replication: 'async', standbys: 1, faults: ['failover'] },
  sessionSettings: { synchronous_commit: 'on' },
  run: failoverUnderLoad('async'),
  expect: {
    faults: FAILOVER_FAULTS,
    boundaryChecks: ['lostAcknowledged', 'oversold', 'linearizable', 'drift', 'auditMismatch'],
    relations: (_params, { observed }) => retryProblems(observed),
    exercised: (_params, { outcomes, observed }) => [
      ...((observed.heldPastStandby ?? 0) > 0 || outcomes.INDETERMINATE
        ? []
        : ['no hold acknowledged past the standby, and no request cut off']),
      ...((observed.heldAfterFailover ?? 0) > 0 ? [] : ['no hold on the promoted member']),
    ],
  },
});
