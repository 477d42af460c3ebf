/**
 * memory-quota-config-restart — NEGATIVE CONTROL (expect: violate), the flash-sale lab's memory-quota
 * restart. memory-quota, but a restarted node starts again from its configured share instead of rebuilding it
 * from the ledger.
 *
 * What it gets wrong: the count lived only in memory. node-1 sells its 20, restarts with 20 again and
 * sells them again: 60 sales in the ledger for 40 units, found only by reconciling afterwards.
 *
 * How the suite catches it every run: `restart` restarts node-1 after it sold out and sends it more
 * clients (oversold 20); `node-restart-partial` restarts it mid-sale (oversold 5); `node-crash` kills a node
 * between memory and ledger and restarts it (oversold).
 */
import type { Strategy } from '../contract.ts';
import { memoryQuotaDesign } from '../support/memory-quota-design.ts';

const memoryQuotaConfigRestart: Strategy = {
  id: 'memory-quota-config-restart',
  title: 'In-memory share per node, restarted from its configured share',
  guarantee: 'none: a restarted node forgets what it sold and sells its share again',
  falseSoldOut:
    "each node sells only its own share: it answers SOLD_OUT while another node's share is unsold",
  expect: 'violate',
  caughtBy: { restart: ['oversold'], 'node-restart-partial': ['oversold'], 'node-crash': ['oversold'] },
  notApplicable:
    'negative control: restart, node-restart-partial and node-crash are the cases that must catch it',
  ...memoryQuotaDesign({ rebuildFromLedger: false }),
};

export default memoryQuotaConfigRestart;
