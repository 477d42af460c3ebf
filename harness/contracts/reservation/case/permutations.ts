/**
 * An interleaving case: the scenario's spec parsed once, its listed permutation judged, and with
 * `--permutations all` every other order of its steps run on fresh tables and reported
 * (case/permutations.ts); the case fails when any valid order fails.
 */

import { inEveryOrder } from '../../../case/permutations.ts';
import { type SpecOrders, specOrders } from '../../../case/spec-orders.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import type { CaseSpec } from './case-spec.ts';
import { driveInterleaving } from './drive-interleaving.ts';
import { onFreshTables } from './fresh-tables.ts';
import type { InterleavingScenario } from './scenario.ts';

const parsed = new Map<string, SpecOrders>();

/** The scenario's isolation spec: the one permutation it lists, and every other order of its steps. */
function ordersOf(scenario: InterleavingScenario): SpecOrders {
  const known = parsed.get(scenario.id);
  if (known) return known;
  const orders = specOrders(scenario.spec, `fixtures/reservation/scenarios/${scenario.id}.ts`, [
    RESERVATION_VERBS,
  ]);
  parsed.set(scenario.id, orders);
  return orders;
}

export async function runInterleaving(
  db: RunDatabase,
  spec: CaseSpec,
  settings: CaseSettings,
  scenario: InterleavingScenario,
): Promise<CaseResult> {
  const { listed, others } = ordersOf(scenario);
  const result = await onFreshTables(db, spec, settings, (on) => driveInterleaving(on, listed, false));
  // Another order is judged on everything but the listed order's blocking.
  return inEveryOrder({ permutation: listed, result }, others, settings, (permutation, order) =>
    onFreshTables(db, spec, order, (on) => driveInterleaving(on, permutation, true), false),
  );
}
