/**
 * db-crash with `synchronous_commit = off` (the embedded server's default, for speed): a commit is
 * acknowledged before its WAL is flushed, so an immediate shutdown loses the acknowledged holds whose WAL
 * was still in memory. The scenario measures how many (`lostAcknowledged`, reported as this design's
 * boundary, never failing the run) so nobody mistakes the fast setting for a durable one. The drive is
 * db-crash's: the window is widened only with `wal_writer_delay` (10 s while the clients run), never with
 * a sleep.
 */
import { defineScenario, LAB_SKU, TTL_MS } from '../harness/contracts/reservation/case/scenario.ts';
import { CRASH_FAULTS, crashUnderLoad } from './db-crash.ts';

const CLIENTS = 40;

export default defineScenario<{ heldBeforeRestart: number; heldAfterRestart: number }>({
  id: 'db-crash-async',
  kind: 'script',
  summary: `db-crash with synchronous_commit = off: acknowledged holds lost in the crash, measured`,
  input: {
    clients: CLIENTS,
    stock: [{ sku: LAB_SKU, total: 1000 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  sessionSettings: { synchronous_commit: 'off' },
  crashesDatabase: true,
  access: ['server-settings'],
  run: crashUnderLoad,
  expect: {
    faults: CRASH_FAULTS,
    // What a design keeps outside the database (a node's memory) also parts from what the crash left:
    // measured with the lost holds, as the price of the setting.
    boundaryChecks: ['linearizable', 'lostAcknowledged', 'drift'],
    observations: () => ({ heldAfterRestart: 10 }),
    exercised: (_params, { outcomes }) => (outcomes.INDETERMINATE ? [] : ['the crash cut no request off']),
  },
});
