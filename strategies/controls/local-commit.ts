/**
 * local-commit — NEGATIVE CONTROL (expect: violate). hot-row, but each reservation commits with
 * `synchronous_commit = local` set in its own transaction: HELD is answered once COMMIT is flushed on the
 * primary's own disk, without waiting for the synchronous standby.
 *
 * What it gets wrong: the acknowledgement outruns replication. On one server nothing shows it — the WAL
 * is flushed before HELD, so a crash of the server (db-crash) loses nothing — but on a synchronous
 * cluster a hold acknowledged while its standby lags or is cut off is on the primary alone, and a failover
 * to that standby loses it (and sells its unit again), which `synchronous_standby_names` was set to prevent.
 *
 * How the suite catches it: only a failover can. `failover-sync` cuts the standby's link, waits until the
 * primary has committed what its standby lacks (here a hold answered HELD, where an honest design's commit
 * waits in SyncRep), kills the primary and promotes the standby: the hold is on no survivor
 * (`lostAcknowledged`). `explore --cluster embedded` finds it the same way: its failover programs cut the
 * link before an operation in flight, which this design acknowledges and the failover then loses.
 */
import type { Strategy } from '../contract.ts';
import hotRow from '../hot-row.ts';
import { reserveCommittingAt } from '../support/commit-level-reserve.ts';

const localCommit: Strategy = {
  ...hotRow,
  id: 'local-commit',
  title: 'hot-row acknowledging before its synchronous standby has the commit',
  guarantee:
    'none: HELD is answered once the commit is on the primary alone (synchronous_commit = local per transaction)',
  expect: 'violate',
  caughtBy: { 'failover-sync': ['lostAcknowledged'] },
  notApplicable:
    'negative control: failover-sync (a cluster scenario, run --cluster) is the case that must catch it',
  reserve: reserveCommittingAt('local'),
};

export default localCommit;
