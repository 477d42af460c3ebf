/**
 * The order contract (docs/contract.md, "Orders"): multi-line orders, every line of a cart held or none, no
 * sku oversold, every quantity returned once, one order per key — as one object the harness takes. Its
 * designs implement strategies/order/contract.ts (`contract: 'order'`), its scenarios are the files of
 * fixtures/order/scenarios/: specs of order steps, and many clients' carts sent together.
 */
import type { RunSettings } from '../../contract/case-settings.ts';
import { type Contract, type Selection, START_RANK } from '../../contract/contract.ts';
import { crossedPlan } from '../../contract/crossed-plan.ts';
import { HARNESS_CONNECTIONS } from '../../database/preflight.ts';
import { parseSpec } from '../../interleaving/spec-parser.ts';
import { ORDER_BENCH } from './bench.ts';
import { ORDER_SCENARIOS } from './case/order-scenarios.ts';
import { readOrderSpec } from './case/order-spec-file.ts';
import { runOrderCase } from './case/run-order-case.ts';
import { ORDER_DESIGNS, type OrderDesignRef } from './designs/order-registry.ts';
import { ORDER_EXPLORE } from './explore/order-explore.ts';
import type { OrderScenario } from './order-scenario.ts';
import { ORDER_REPORT } from './report.ts';
import type { OrderReport } from './report-schema.ts';
import { ORDER_SPEC_VERBS } from './spec/order-verbs.ts';
import type { OrderCaseResult } from './verdict/order-case-result.ts';

/** The sessions a case opens: one per client, or the spec's sessions. */
function sessionsOf(scenario: OrderScenario): number {
  if ('clients' in scenario) return scenario.clients.length;
  const text = scenario.spec(scenario.holdAt?.[0]);
  return parseSpec(text, scenario.id, [ORDER_SPEC_VERBS]).sessions.length;
}

/**
 * Every order scenario against every order design, `repeat` times each, then each design explored. A spec's
 * sessions mostly wait (on a held order, on each other's rows): they start with the waiting work; many
 * clients keep the cores busy and start with the other cases.
 */
function plan(selection: Selection<OrderDesignRef, OrderScenario, OrderCaseResult>, settings: RunSettings) {
  return crossedPlan(selection, settings, {
    placed: (scenario) => ({
      placement: { alone: undefined, connections: sessionsOf(scenario) + HARNESS_CONNECTIONS },
      rank: 'clients' in scenario ? START_RANK.case : START_RANK.waiting,
    }),
    run: runOrderCase,
  });
}

export const ORDER = {
  id: 'order',
  title: 'Order contract (multi-line orders: every line of a cart held or none)',
  designs: ORDER_DESIGNS,
  scenarios: {
    all: ORDER_SCENARIOS,
    specFile: readOrderSpec,
  },
  bench: ORDER_BENCH,
  verbs: ORDER_SPEC_VERBS,
  plan,
  report: ORDER_REPORT,
  explore: ORDER_EXPLORE,
} satisfies Contract<OrderDesignRef, OrderScenario, OrderCaseResult, OrderReport>;
