/**
 * memory-quota — each node (process, or worker thread standing for one) sells its share of the stock from
 * an in-memory count, then appends the sale to a ledger table (seed 000, design C).
 *
 * How it stays correct: the shares add up to the stock, and a node that starts (or restarts) rebuilds its
 * count from the ledger: share − its sales recorded there. A unit decremented in memory but never written
 * (a crash between the two) is not lost: the ledger does not have it, so the rebuilt count does.
 *
 * When it breaks: a node that restarts from its configured share (see the control
 * memory-quota-config-restart) sells its share again; the database only records the oversell. Shares are
 * fixed per node: one node answers SOLD_OUT while another still has units (reported as falseSoldOut when a
 * scenario leaves a node's share unsold).
 *
 * Last measured (embedded PostgreSQL 18.4, synchronous_commit=off, 2 cores, 2026-11-30): restart 40 sold
 * of 40, oversold 0; node-crash: units lost 0; false-sold-out: falseSoldOut 1 (an aborted sale's unit is
 * back in memory only after the rollback). bench (reservations/s, p99 ms): 1 client 732 (3.4), 4: 1448
 * (5.7), 16: 1330 (22), 64: 1165 (110), 150: 1157 (234).
 */
import type { Strategy } from './contract.ts';
import { memoryQuotaDesign } from './support/memory-quota-design.ts';

const memoryQuota: Strategy = {
  id: 'memory-quota',
  title: 'In-memory share per node, sales ledger, rebuild from the ledger on start',
  guarantee: 'shares add up to the stock; a (re)started node rebuilds its count as share − its ledger sales',
  expect: 'hold',
  ...memoryQuotaDesign({ rebuildFromLedger: true }),
};

export default memoryQuota;
