/**
 * The run's work as its lanes see it (each contract's plan, suite.ts): what each case needs of the
 * server's connection room, which must have nothing beside them on their server, and the order they start
 * in — longest first, the report's order kept within each rank.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { CaseWork } from '../harness/contract/contract.ts';
import { PAYMENT_SCENARIOS } from '../harness/contracts/payment/case/payment-scenarios.ts';
import { PAYMENT } from '../harness/contracts/payment/contract.ts';
import { loadPaymentDesign } from '../harness/contracts/payment/designs/payment-registry.ts';
import { findScenario } from '../harness/contracts/reservation/case/index.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { HARNESS_CONNECTIONS } from '../harness/database/preflight.ts';
import { startOrder } from '../harness/suite/suite.ts';
import type { CaseResultBase } from '../harness/verdict/case-result.ts';

const hotRow = await loadStrategy('hot-row');
const control = await loadStrategy('check-then-act');
const onConflict = await loadPaymentDesign('payment-on-conflict');
const SETTINGS = { repeat: 1, overrides: {} };
const plans: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(plans.map((p) => p.close()));
});

function caseOf(id: string): CaseWork<CaseResultBase> {
  const plan = RESERVATION.plan({ designs: [hotRow], scenarios: [findScenario(id)] }, SETTINGS);
  plans.push(plan);
  const [work] = plan.work;
  if (!work) throw new Error(id);
  return work;
}

function paymentOf(id: string): CaseWork<CaseResultBase> {
  const scenario = PAYMENT_SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(id);
  const [work] = PAYMENT.plan({ designs: [onConflict], scenarios: [scenario] }, SETTINGS).work;
  if (!work) throw new Error(id);
  return work;
}

/** The explorations of the designs, as the run's explorer adds them (three sessions a program). */
function explorationsOf(...refs: (typeof hotRow)[]): CaseWork<CaseResultBase>[] {
  const explore = { connections: 3, run: () => Promise.reject(new Error('not run')) };
  const plan = RESERVATION.plan({ designs: refs, scenarios: [], explore }, SETTINGS);
  plans.push(plan);
  return plan.work;
}

describe("the run's work", () => {
  it('counts a connection per client, or what the scenario declares, beside the harness own', () => {
    expect(caseOf('contention').placement.connections).toBe(150 + HARNESS_CONNECTIONS);
    // http's 120 clients reach the database through the service's two pools of 4.
    expect(caseOf('http').placement.connections).toBe(8 + HARNESS_CONNECTIONS);
    expect(paymentOf('payment-duplicates').placement.connections).toBe(20 + HARNESS_CONNECTIONS);
    const [explore] = explorationsOf(hotRow);
    expect(explore?.placement).toEqual({ alone: undefined, connections: 3 + HARNESS_CONNECTIONS });
  });

  it('runs the cases that crash the server with nothing beside them on it', () => {
    expect(caseOf('db-crash').placement.alone).toMatch(/crashes/);
    expect(paymentOf('payment-db-crash').placement.alone).toMatch(/crashes/);
    expect(caseOf('contention').placement.alone).toBeUndefined();
    expect(paymentOf('payment-mismatch').placement.alone).toBeUndefined();
  });

  it('starts the alone cases, the explorations (safe designs first), the payments, then the rest', () => {
    const items = [
      caseOf('contention'),
      caseOf('db-crash'),
      caseOf('user-race'),
      paymentOf('payment-mismatch'),
      paymentOf('payment-db-crash'),
      ...explorationsOf(control, hotRow),
    ];
    expect(startOrder(items.map((w) => w.rank))).toEqual([1, 4, 6, 5, 3, 0, 2]);
  });
});
