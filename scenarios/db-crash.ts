/**
 * The database crashes under load (immediate shutdown: the postmaster gets SIGQUIT) while 40 clients
 * reserve in a closed loop, and restarts on the same data directory. Every session runs with
 * `synchronous_commit = on`: a HELD the client heard of was flushed, so the final read (through `status`
 * after the restart) must find every one (`lostAcknowledged` 0), with drift 0 and nothing oversold.
 * Requests the crash cut off are INDETERMINATE; the final read explains each as committed or not. The
 * crash comes once 40 holds have committed, seen through remaining(), not after a sleep, while every
 * client's last request is still to be sent (crashUnderLoad); the WAL writer
 * is slowed to 10 s meanwhile, so a design that acknowledges before its commit is durable (the control
 * async-commit) loses its holds on every run.
 */
import {
  defineScenario,
  LAB_SKU,
  requestsFor,
  type ScriptContext,
  TTL_MS,
} from '../harness/scenario/scenario.ts';

const CLIENTS = 40;
const EACH = 10;
const BEFORE_CRASH = 40;
/** What a client sees when the server goes away: the server's own shutdown codes, or a closed socket. */
export const CRASH_FAULTS = ['57P01', '57P02', '57P03', '08006'] as const;

type Seen = { heldBeforeRestart: number; heldAfterRestart: number };

/**
 * The drive both crash scenarios share: the clients reserve in a closed loop, the server crashes once
 * BEFORE_CRASH holds have committed, then 10 new clients reserve on the restarted server. Each client's
 * last request waits until the crash has come: however fast the loop runs beside the harness (with
 * synchronous_commit off it can send every request before the crash), no client is done before it, so the
 * crash always cuts requests off — a case that did not would fail as not exercised.
 */
export async function crashUnderLoad(ctx: ScriptContext<Seen>): Promise<void> {
  const total = ctx.params.stock[0]?.total ?? 0;
  let crashed: () => void = () => undefined;
  const lastAfter = new Promise<void>((resolve) => {
    crashed = resolve;
  });
  // Nothing flushes the WAL on its own while the clients run: only a synchronous commit makes a hold
  // durable, as it must be before its HELD is sent.
  const before = await ctx.withServerSetting('wal_writer_delay', '10000', async () => {
    const requests = requestsFor(ctx.params, 1, CLIENTS * EACH);
    const driving = ctx.reserve(requests, undefined, { perClient: EACH, lastAfter });
    try {
      await ctx.remainingAtMost(LAB_SKU, total - BEFORE_CRASH);
      await ctx.crashDatabase();
    } finally {
      crashed();
    }
    return driving;
  });
  ctx.observe('heldBeforeRestart', before.filter((a) => a.outcome === 'HELD').length);
  const after = await ctx.reserve(requestsFor(ctx.params, CLIENTS * EACH + 1, 10));
  ctx.observe('heldAfterRestart', after.filter((a) => a.outcome === 'HELD').length);
}

export default defineScenario<Seen>({
  id: 'db-crash',
  kind: 'script',
  summary: `the database crashes (SIGQUIT) under ${CLIENTS} clients in a closed loop, synchronous_commit = on`,
  input: {
    clients: CLIENTS,
    stock: [{ sku: LAB_SKU, total: 1000 }],
    user: 'user-0001',
    ttlMs: TTL_MS,
    nodes: 2,
  },
  sessionSettings: { synchronous_commit: 'on' },
  crashesDatabase: true,
  access: ['server-settings'],
  run: crashUnderLoad,
  expect: {
    faults: CRASH_FAULTS,
    observations: () => ({ heldAfterRestart: 10 }),
    exercised: (_params, { outcomes, observed }) => [
      ...((observed.heldBeforeRestart ?? 0) >= BEFORE_CRASH
        ? []
        : ['fewer holds than expected before the crash']),
      ...(outcomes.INDETERMINATE ? [] : ['the crash cut no request off']),
    ],
  },
});
