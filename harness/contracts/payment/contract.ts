/**
 * The payment contract (the isolation-matrix chapter's payment idempotency, docs/contract.md#payments): one
 * payment and one outbox row per idempotency key, a mismatched payload refused, as one object the harness
 * takes. Its designs implement strategies/payment/contract.ts (`contract: 'payment'`), its scenarios are the
 * files of fixtures/payment/scenarios/, mostly specs of PAY steps.
 */

import type { RunSettings } from '../../contract/case-settings.ts';
import { type CaseWork, type Contract, type Selection, START_RANK } from '../../contract/contract.ts';
import { crossedPlan } from '../../contract/crossed-plan.ts';
import { HARNESS_CONNECTIONS } from '../../database/preflight.ts';
import { PAYMENT_BENCH } from './bench.ts';
import { PAYMENT_SESSIONS, type PaymentScenario } from './case/payment-scenario.ts';
import { PAYMENT_SCENARIOS } from './case/payment-scenarios.ts';
import { readPaymentSpec } from './case/payment-spec-file.ts';
import { runPaymentCase } from './case/run-payment-case.ts';
import { PAYMENT_DESIGNS, type PaymentDesignRef } from './designs/payment-registry.ts';
import { PAYMENT_EXPLORE } from './explore/payment-explore.ts';
import { PAYMENT_REPORT } from './report.ts';
import type { PaymentReport } from './report-schema.ts';
import { PAYMENT_VERBS } from './spec/payment-verbs.ts';
import type { PaymentCaseResult } from './verdict/payment-case-result.ts';

/** Where a payment case runs: alone when it crashes the server; its sessions beside the harness's own. */
function placementOf(scenario: PaymentScenario): CaseWork<PaymentCaseResult>['placement'] {
  const crashes = 'run' in scenario && scenario.crashesDatabase;
  return {
    alone: crashes ? 'it crashes and restarts the server every case shares' : undefined,
    connections: (scenario.sessions ?? PAYMENT_SESSIONS) + HARNESS_CONNECTIONS,
  };
}

/**
 * Every payment scenario against every payment design, `repeat` times each, then each design explored.
 * Their sessions mostly wait (on a held pay, an external call, a killed worker): they start before the
 * cases that keep the cores busy.
 */
function plan(
  selection: Selection<PaymentDesignRef, PaymentScenario, PaymentCaseResult>,
  settings: RunSettings,
) {
  return crossedPlan(selection, settings, {
    placed: (scenario) => {
      const placement = placementOf(scenario);
      return { placement, rank: placement.alone === undefined ? START_RANK.waiting : START_RANK.alone };
    },
    run: (db, ref, scenario, caseSettings, repetition) =>
      runPaymentCase(db, ref, scenario, caseSettings, repetition, settings.cluster),
  });
}

export const PAYMENT = {
  id: 'payment',
  title: 'Payment contract (payment idempotency: one payment and one outbox row per idempotency key)',
  designs: PAYMENT_DESIGNS,
  scenarios: {
    all: PAYMENT_SCENARIOS,
    specFile: readPaymentSpec,
  },
  bench: PAYMENT_BENCH,
  verbs: PAYMENT_VERBS,
  plan,
  report: PAYMENT_REPORT,
  explore: PAYMENT_EXPLORE,
} satisfies Contract<PaymentDesignRef, PaymentScenario, PaymentCaseResult, PaymentReport>;
