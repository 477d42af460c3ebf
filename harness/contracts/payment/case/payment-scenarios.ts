/**
 * The payment scenarios: every file in `fixtures/payment/scenarios/` is one, found when the harness loads (as
 * index.ts finds the reservation scenarios), each checked to be a payment scenario named by its file.
 */
import { readdirSync } from 'node:fs';
import { importSource } from '../../../registry/source-import.ts';
import type { PaymentScenario } from './payment-scenario.ts';

const FOLDER = new URL('../../../../fixtures/payment/scenarios/', import.meta.url);

async function loadPaymentScenarios(): Promise<PaymentScenario[]> {
  const ids = readdirSync(FOLDER)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();
  return Promise.all(
    ids.map(async (id) => {
      const source = new URL(`${id}.ts`, FOLDER).href;
      const module = (await importSource(source)) as { default?: PaymentScenario };
      const scenario = module.default;
      if (scenario?.contract !== 'payment' || scenario.id !== id) {
        throw new Error(
          `fixtures/payment/scenarios/${id}.ts must export default a payment scenario with id "${id}"`,
        );
      }
      return { ...scenario, source };
    }),
  );
}

export const PAYMENT_SCENARIOS: readonly PaymentScenario[] = await loadPaymentScenarios();
