/**
 * The payment contract's side of the explorer (contract-explore.ts): no sweep of its own — its exhaustive
 * scope (pay-scope.ts) already races every pair of PAYs at every pause point the design declares — then
 * random programs (pay-arbitrary.ts), each run as a payment spec case (run-pay-program.ts) and written as
 * a spec of PAY and RESUME steps (pay-program.ts).
 */
import { refusedNeed } from '../../../case/applicability.ts';
import type { ContractExplore, ExploreIdentity } from '../../../contract/contract-explore.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import type { PaymentCaseResult } from '../verdict/payment-case-result.ts';
import { MAX_PAY_SESSIONS, payProgramArbitrary } from './pay-arbitrary.ts';
import { type PayProgram, paySpecText } from './pay-program.ts';
import { payScope } from './pay-scope.ts';
import { replayPaySpec, runPayProgram } from './run-pay-program.ts';

const identified = (identity: ExploreIdentity) => ({ ...identity, contract: 'payment' as const });

export const PAYMENT_EXPLORE: ContractExplore<PaymentDesignRef, PaymentCaseResult, PayProgram> = {
  connections: MAX_PAY_SESSIONS,
  notExplored: (db, ref) => refusedNeed(ref.design.needs ?? [], db.capabilities),
  scope: payScope,
  random: payProgramArbitrary,
  specText: paySpecText,
  run: runPayProgram,
  replay: replayPaySpec,
  skippedCase: (identity, reason) => ({
    ...identified(identity),
    status: 'n/a',
    outcomes: {},
    boundary: `n/a: ${reason}`,
    reason,
  }),
  brokenCase: (identity, problem) => ({
    ...identified(identity),
    status: 'broken',
    outcomes: {},
    boundary: problem,
    problems: [problem],
  }),
};
