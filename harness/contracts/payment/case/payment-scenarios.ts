/**
 * The payment scenarios: every file in `fixtures/payment/scenarios/` is one, found when the harness loads (as
 * index.ts finds the reservation scenarios), each checked to be a payment scenario named by its file.
 */
import { loadScenarioFolder } from '../../../registry/scenario-folder.ts';
import type { PaymentScenario } from './payment-scenario.ts';

export const PAYMENT_SCENARIOS: readonly PaymentScenario[] = await loadScenarioFolder<PaymentScenario>(
  'payment',
  'a payment scenario',
);
