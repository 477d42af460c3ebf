/**
 * release-twice — NEGATIVE CONTROL (expect: violate), the frozen-stock chapter's second pitfall (the timeout
 * job that closes unpaid orders runs concurrently with the payment callback, and a release must never run
 * twice for one order). frozen-ledger, but a release decides from the order's status alone — an order not
 * paid (not CONFIRMED) gives its unit back — instead of the reservation's own stock_frozen flag.
 *
 * What it gets wrong: a second release of one order (the timeout job has already ended it, a payment
 * callback's cancel path or a retry releases it again) moves frozen → available a second time. Each move
 * is a pair and is booked, so the books still reconcile and the ledger replays exactly: the ledger only
 * shows two RELEASE entries (or EXPIRE + RELEASE) for one key, which is how the frozen-stock chapter traced
 * its available stock suddenly growing by 10. The stock now counts a unit no reservation gave back.
 *
 * How the suite catches it every run: `lifecycle-matrix` replays a release, releases an expired row and
 * releases one row from 4 sessions at once; `release-expire-race` holds the expiry job uncommitted while
 * the release arrives, and the release, re-evaluated on the EXPIRED row, returns the unit again. Both fire
 * drift; reconciled stays true and ledgerReplayDrift 0 throughout.
 */
import type { Strategy } from '../contract.ts';
import frozenLedger, { booksLifecycle, UNFREEZE } from '../frozen-ledger.ts';

const releaseTwice: Strategy = {
  ...frozenLedger,
  id: 'release-twice',
  title: 'Frozen ledger whose release is guarded by the order status, not by stock_frozen',
  guarantee: 'none: any order not CONFIRMED gives a unit back, however often it is released',
  expect: 'violate',
  caughtBy: { 'lifecycle-matrix': ['drift'], 'release-expire-race': ['drift'] },
  notApplicable:
    'negative control: lifecycle-matrix and release-expire-race are the cases that must catch it',
  ...booksLifecycle({ unfreeze: UNFREEZE, releasable: "request_key = $1 AND status <> 'CONFIRMED'" }),
};

export default releaseTwice;
