/**
 * bucketed-no-fallback — NEGATIVE CONTROL (expect: violate). bucketed without the fallback: a reserve
 * tries only the bucket its user hashes to and answers SOLD_OUT when that one is empty.
 *
 * What it gets wrong: never an oversell — every bucket is still a conditional counter — but a user whose
 * bucket ran dry is told SOLD_OUT while other buckets still hold units (the frozen-stock chapter's
 * rebalancing between buckets near the end of the stock, left undone). Who is refused depends on how users
 * hash, not on the stock.
 *
 * How the suite catches it every run: where a scenario demands exact outcome counts and its users do not
 * fill every bucket of BUCKETS = 4. Users hash the same way on every run (sha256 of the id), so these
 * counts do not vary: `confirm-vs-expire` (40 buyers for 40 units, 7 of them on a bucket of 10: HELD 37,
 * SOLD_OUT 3), `node-aborts` (8 buyers for 6 units, none on two of the buckets: HELD 3) and
 * `node-restart-partial` (50 buyers for 40 units, 9 on one bucket of 10: HELD 39), each on `outcomes`.
 * `contention` does not catch it: its 150 users hash 34/38/46/32 over the four buckets of 10, so every
 * bucket sells out anyway (`--clients 40` would show HELD 37, but a control's cases run the fixture's
 * inputs). Another N, or other user ids, moves these counts.
 */

import { BUCKETS, bucketedDesign } from '../bucketed.ts';
import type { Strategy } from '../contract.ts';

const bucketedNoFallback: Strategy = {
  id: 'bucketed-no-fallback',
  title: 'Bucketed stock without the fallback: an empty home bucket answers SOLD_OUT',
  guarantee: 'none for availability: SOLD_OUT while other buckets still hold units (false sold-out)',
  expect: 'violate',
  caughtBy: {
    'confirm-vs-expire': ['outcomes'],
    'node-aborts': ['outcomes'],
    'node-restart-partial': ['outcomes'],
  },
  notApplicable:
    'negative control: confirm-vs-expire, node-aborts and node-restart-partial are the cases that must catch it',
  ...bucketedDesign({ buckets: BUCKETS, fallback: false }),
};

export default bucketedNoFallback;
