/**
 * release-frozen-only — NEGATIVE CONTROL (expect: violate), the frozen-stock chapter's release bug (one
 * deploy shipped a release path that lowered frozen without raising available, found by that day's
 * reconciliation). frozen-ledger, but giving a unit back — a release, and the expiry job's timeout release,
 * which share the statement — lowers `frozen` and never raises `available`. The ledger still books the
 * RELEASE or EXPIRE, as the code meant to do.
 *
 * What it gets wrong: every unit given back leaves the books. available + frozen + sold falls one short of
 * total per unit, and replaying the ledger gives one more available unit than the counter holds. Nothing
 * is oversold: the units are lost to sale (the harness's drift sees that too), which is why only the books
 * noticed it in the frozen-stock chapter.
 *
 * How the suite catches it every run: `lifecycle-matrix` releases and expires on both skus, and `expiry`
 * expires all 20 of its holds: reconciled false and ledgerReplayDrift = the units given back; the
 * harness's drift fires beside them.
 */
import type { Strategy } from '../contract.ts';
import frozenLedger, { booksLifecycle, RELEASABLE } from '../frozen-ledger.ts';

const releaseFrozenOnly: Strategy = {
  ...frozenLedger,
  id: 'release-frozen-only',
  title: 'Frozen ledger whose release lowers frozen but never raises available',
  guarantee: 'none: a unit given back leaves frozen and never reaches available (the books stop adding up)',
  expect: 'violate',
  caughtBy: {
    'lifecycle-matrix': ['reconciled', 'ledgerReplayDrift'],
    expiry: ['reconciled', 'ledgerReplayDrift'],
  },
  notApplicable: 'negative control: lifecycle-matrix and expiry are the cases that must catch it',
  ...booksLifecycle({ unfreeze: 'frozen = s.frozen - per.n', releasable: RELEASABLE }),
};

export default releaseFrozenOnly;
