/**
 * The order scenarios: every file in `fixtures/order/scenarios/` is one, found when the harness loads (as
 * every contract's are), each checked to be an order scenario named by its file.
 */
import { loadScenarioFolder } from '../../../registry/scenario-folder.ts';
import type { OrderScenario } from '../order-scenario.ts';

export const ORDER_SCENARIOS: readonly OrderScenario[] = await loadScenarioFolder<OrderScenario>(
  'order',
  'an order scenario',
);
