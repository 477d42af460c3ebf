/**
 * `contention` where a fixed share of clients (every 4th) rolls back at `before-commit` after taking a
 * unit: false sold-out under load. A design that waits for the holder (hot-row) sells every unit; one that
 * skips locked units may answer SOLD_OUT while a unit comes back (counted as falseSoldOut, reported).
 *
 * Not left to chance: client 0 leads. It is held at `before-commit` with its unit taken while every other
 * client waits at `after-read`, and rolls back once all have arrived, so at least one abort held a unit on
 * every run (the other aborting clients race like everyone else).
 */
import {
  defineScenario,
  distinctUserClients,
  everyUnitAccounted,
  firstSku,
  LAB_SKU,
  type ScenarioParams,
  TTL_MS,
} from '../harness/contracts/reservation/case/scenario.ts';

/** Every client whose index is a multiple of this rolls back at before-commit. */
const ABORT_EVERY = 4;
const aborting = (params: ScenarioParams) => Math.ceil(params.clients / ABORT_EVERY);

export default defineScenario({
  id: 'contention-aborts',
  kind: 'clients',
  summary: `contention where every ${ABORT_EVERY}th client rolls back at before-commit: false sold-out under load`,
  input: { clients: 150, stock: [{ sku: LAB_SKU, total: 40 }], user: 'user-0001', ttlMs: TTL_MS, nodes: 2 },
  // after-read too: without the others' hold there, the lead's abort would be left to chance.
  requires: [
    { operation: 'reserve', anyOf: ['before-commit'] },
    { operation: 'reserve', anyOf: ['after-read'] },
  ],
  plan: (params) => ({
    holdAt: 'after-read',
    clients: distinctUserClients(params).map((client) => {
      if (client.index % ABORT_EVERY !== 0) return client;
      const lead = client.index === 0 ? { holdAt: 'before-commit' as const } : {};
      return { ...client, rollbackAt: 'before-commit' as const, ...lead };
    }),
  }),
  expect: {
    relations: (params, { outcomes, invariants }) =>
      everyUnitAccounted(
        { stock: firstSku(params).total, clients: params.clients, aborting: aborting(params) },
        outcomes,
        invariants,
      ),
    exercised: (params, { outcomes }) =>
      firstSku(params).total > 0 && !outcomes.ROLLED_BACK ? ['no client rolled back holding a unit'] : [],
  },
});
