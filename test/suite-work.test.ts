/**
 * The run's work as its lanes see it (suite-work.ts): what each item needs of the server's connection room,
 * which must have nothing beside them on their server, and the order they start in — longest first, the
 * report's order kept within each kind.
 */
import { describe, expect, it } from 'vitest';
import { HARNESS_CONNECTIONS } from '../harness/database/preflight.ts';
import { loadPaymentDesign } from '../harness/registry/payment-registry.ts';
import { loadStrategy } from '../harness/registry/registry.ts';
import { findScenario } from '../harness/scenario/index.ts';
import { PAYMENT_SCENARIOS } from '../harness/scenario/payment/payment-scenarios.ts';
import { paramsFor } from '../harness/scenario/suite.ts';
import { placementOf, type SuiteItem, startOrder } from '../harness/scenario/suite-work.ts';

const hotRow = await loadStrategy('hot-row');
const control = await loadStrategy('check-then-act');
const onConflict = await loadPaymentDesign('payment-on-conflict');

function caseOf(id: string): SuiteItem {
  const scenario = findScenario(id);
  const params = paramsFor(scenario, {});
  return { kind: 'case', spec: { id: `${id}/hot-row`, scenario, ref: hotRow, params } };
}

function paymentOf(id: string): SuiteItem {
  const scenario = PAYMENT_SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(id);
  return { kind: 'payment', ref: onConflict, scenario, repetition: '' };
}

describe("the run's work", () => {
  it('counts a connection per client, or what the scenario declares, beside the harness own', () => {
    expect(placementOf(caseOf('contention')).connections).toBe(150 + HARNESS_CONNECTIONS);
    // http's 120 clients reach the database through the service's two pools of 4.
    expect(placementOf(caseOf('http')).connections).toBe(8 + HARNESS_CONNECTIONS);
    expect(placementOf(paymentOf('payment-duplicates')).connections).toBe(20 + HARNESS_CONNECTIONS);
    const explore: SuiteItem = { kind: 'explore', ref: hotRow, connections: 3 };
    expect(placementOf(explore)).toEqual({ alone: undefined, connections: 3 + HARNESS_CONNECTIONS });
  });

  it('runs the cases that crash the server with nothing beside them on it', () => {
    expect(placementOf(caseOf('db-crash')).alone).toMatch(/crashes/);
    expect(placementOf(paymentOf('payment-db-crash')).alone).toMatch(/crashes/);
    expect(placementOf(caseOf('contention')).alone).toBeUndefined();
    expect(placementOf(paymentOf('payment-mismatch')).alone).toBeUndefined();
  });

  it('starts the alone cases, the explorations (safe designs first), the payments, then the rest', () => {
    const items: SuiteItem[] = [
      caseOf('contention'),
      caseOf('db-crash'),
      caseOf('user-race'),
      paymentOf('payment-mismatch'),
      paymentOf('payment-db-crash'),
      { kind: 'explore', ref: control, connections: 3 },
      { kind: 'explore', ref: hotRow, connections: 3 },
    ];
    expect(startOrder(items)).toEqual([1, 4, 6, 5, 3, 0, 2]);
  });
});
