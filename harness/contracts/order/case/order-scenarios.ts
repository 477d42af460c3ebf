/**
 * The order scenarios: every file in `fixtures/order/scenarios/` is one, found when the harness loads (as
 * every contract's are), each checked to be an order scenario named by its file.
 */
import { readdirSync } from 'node:fs';
import { importSource } from '../../../registry/source-import.ts';
import type { OrderScenario } from '../order-scenario.ts';

const FOLDER = new URL('../../../../fixtures/order/scenarios/', import.meta.url);

async function loadOrderScenarios(): Promise<OrderScenario[]> {
  const ids = readdirSync(FOLDER)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();
  return Promise.all(
    ids.map(async (id) => {
      const source = new URL(`${id}.ts`, FOLDER).href;
      const module = (await importSource(source)) as { default?: OrderScenario };
      const scenario = module.default;
      if (scenario?.contract !== 'order' || scenario.id !== id) {
        throw new Error(
          `fixtures/order/scenarios/${id}.ts must export default an order scenario with id "${id}"`,
        );
      }
      return { ...scenario, source };
    }),
  );
}

export const ORDER_SCENARIOS: readonly OrderScenario[] = await loadOrderScenarios();
