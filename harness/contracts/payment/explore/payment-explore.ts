/**
 * The payment contract's side of the explorer (contract-explore.ts): no sweep of its own — its exhaustive
 * scope (pay-scope.ts) already races every pair of PAYs at every pause point the design declares — then
 * random programs (pay-arbitrary.ts), each written as a spec of PAY and RESUME steps (pay-program.ts) and
 * run as a payment spec case (run-payment-case.ts) judged as if the design claimed to hold
 * (harness/explore/spec-program.ts): a program that fails is a finding. A finding's spec is replayed the
 * same way from its file.
 */
import type { ContractExplore } from '../../../contract/contract-explore.ts';
import { exploreCasesOf, specExplore } from '../../../explore/spec-program.ts';
import { readPaymentSpec } from '../case/payment-spec-file.ts';
import { runPaymentCase } from '../case/run-payment-case.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import type { PaymentCaseResult } from '../verdict/payment-case-result.ts';
import { MAX_PAY_SESSIONS, payProgramArbitrary } from './pay-arbitrary.ts';
import { type PayProgram, paySpecText } from './pay-program.ts';
import { payScope } from './pay-scope.ts';

export const PAYMENT_EXPLORE: ContractExplore<PaymentDesignRef, PaymentCaseResult, PayProgram> = {
  ...specExplore({
    connections: MAX_PAY_SESSIONS,
    scope: payScope,
    random: payProgramArbitrary,
    parse: readPaymentSpec,
    specText: paySpecText,
    runCase: runPaymentCase,
  }),
  ...exploreCasesOf('payment'),
};
