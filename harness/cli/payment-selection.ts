/**
 * Which payment designs and scenarios a run drives, from the same `--strategy`, `--scenario` and `--spec`
 * lists as the reservation ones: a payment id, or a module path whose design declares `contract: 'payment'`,
 * goes to the payment contract, every other name to the reservation harness, a spec file to the contract
 * its steps drive (spec-files.ts). Nothing named means every design of both; naming only one contract's
 * runs only that one.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import {
  isPaymentDesignId,
  loadPaymentDesign,
  PAYMENT_DESIGN_IDS,
  type PaymentDesignRef,
  paymentDesignAtPath,
  paymentVariants,
} from '../registry/payment-registry.ts';
import { type ParamSweep, refuseStraySweep, strategyVariants } from '../registry/strategy-variants.ts';
import type { PaymentScenario } from '../scenario/payment/payment-scenario.ts';
import { PAYMENT_SCENARIOS } from '../scenario/payment/payment-scenarios.ts';
import type { SuiteOptions } from '../scenario/suite.ts';
import type { SpecFiles } from './spec-files.ts';

export interface ContractSelection {
  /** The reservation strategies named (empty: all, unless only payment designs were named). */
  strategyNames: string[];
  /** Only payment designs were named: no reservation strategy runs. */
  noReservationStrategy: boolean;
  scenarioIds: string[];
  /** Only payment scenarios were named: no reservation scenario runs. */
  noReservationScenario: boolean;
  payments: NonNullable<SuiteOptions['payments']>;
}

const isPaymentScenario = (id: string) => PAYMENT_SCENARIOS.some((s) => s.id === id);

export async function selectContracts(
  strategyNames: readonly string[],
  scenarioIds: readonly string[],
  specs: SpecFiles,
): Promise<ContractSelection> {
  const specsGiven = specs.reservation.length + specs.payment.length > 0;
  // A module path goes to the contract its default export declares.
  const atPaths = new Map<string, PaymentDesignRef>();
  for (const name of strategyNames) {
    const ref = isPaymentDesignId(name) ? undefined : await paymentDesignAtPath(name);
    if (ref) atPaths.set(name, ref);
  }
  const paymentNames = strategyNames.filter((n) => isPaymentDesignId(n) || atPaths.has(n));
  const paymentScenarioIds = scenarioIds.filter(isPaymentScenario);
  const others = strategyNames.filter((n) => !paymentNames.includes(n));
  const otherScenarios = scenarioIds.filter((id) => !isPaymentScenario(id));
  const designIds = strategyNames.length === 0 ? PAYMENT_DESIGN_IDS : paymentNames;
  const scenarios: readonly PaymentScenario[] =
    scenarioIds.length === 0 && !specsGiven
      ? PAYMENT_SCENARIOS
      : [...PAYMENT_SCENARIOS.filter((s) => paymentScenarioIds.includes(s.id)), ...specs.payment];
  return {
    strategyNames: others,
    noReservationStrategy: strategyNames.length > 0 && others.length === 0,
    scenarioIds: otherScenarios,
    noReservationScenario:
      scenarioIds.length + specs.payment.length > 0 &&
      otherScenarios.length === 0 &&
      specs.reservation.length === 0,
    payments: {
      designs: await Promise.all(designIds.map((n) => atPaths.get(n) ?? loadPaymentDesign(n))),
      scenarios,
    },
  };
}

/** Both contracts' designs with `--param`'s variants; the sweep may name only designs run here. */
export function withKnobVariants(
  strategies: readonly StrategyRef[],
  payments: readonly PaymentDesignRef[],
  sweep: ParamSweep,
): { strategies: StrategyRef[]; payments: PaymentDesignRef[] } {
  refuseStraySweep(sweep, [...strategies.map((r) => r.strategy.id), ...payments.map((r) => r.design.id)]);
  return { strategies: strategyVariants(strategies, sweep), payments: paymentVariants(payments, sweep) };
}
