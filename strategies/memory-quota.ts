/**
 * memory-quota — each node (process, or worker thread standing for one) sells its share of the stock from
 * an in-memory count, then appends the sale to a ledger table (the flash-sale lab, design C).
 *
 * How it stays correct: the shares add up to the stock, and a node that starts (or restarts) rebuilds its
 * count from the ledger: share − its sales recorded there. A unit decremented in memory but never written
 * (a crash between the two) is not lost: the ledger does not have it, so the rebuilt count does. A rebuild
 * after an unknown outcome waits until none of the node's sales is in flight, and nothing is taken from
 * the dropped count meanwhile: a sale still committing (a commit waiting for its standby when a switchover
 * ends its session) is in the ledger it reads (support/node-count.ts).
 *
 * When it breaks: a node that restarts from its configured share (the control memory-quota-config-restart)
 * sells its share again; the database only records the oversell. A sale whose backend outlives its
 * client's connection (a network cut, not a server gone) may commit after the rebuild read the ledger:
 * the rebuilt count sells that unit again. Shares are fixed per node: one node answers SOLD_OUT while another still
 * has units (falseSoldOut when a scenario leaves a share unsold).
 *
 * Lifecycle: reserve only (no confirm, release or expire: the lifecycle scenarios are not covered). Any
 * reserve that does not commit a sale (replay, user limit, rollback, error) puts its unit back in memory —
 * except one whose connection went away (a crash, a failover): its COMMIT may have landed, so the node
 * rebuilds its count from the ledger instead, on whichever server then takes writes. A reserve that finds
 * its count dropped before it took a unit tries again on the rebuilt one; a count dropped on every attempt
 * answers GAVE_UP after a bounded number of them (support/count-attempts.ts).
 *
 * Pause points: reserve `after-read` once the key is known to be new, `after-memory-before-ledger` with the
 * unit taken from memory and nothing written, `before-commit` with the sale in the ledger.
 */
import type { Strategy } from './contract.ts';
import { memoryQuotaDesign } from './support/memory-quota-design.ts';

const memoryQuota: Strategy = {
  id: 'memory-quota',
  title: 'In-memory share per node, sales ledger, rebuild from the ledger on start',
  guarantee: 'shares add up to the stock; a (re)started node rebuilds its count as share − its ledger sales',
  falseSoldOut:
    "each node sells only its own share: it answers SOLD_OUT while another node's share is unsold",
  expect: 'hold',
  ...memoryQuotaDesign({ rebuildFromLedger: true }),
};

export default memoryQuota;
