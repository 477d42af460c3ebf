/**
 * The reservation contract's `run --target`: a service speaking its HTTP API (docs/http-api.md), probed
 * first, then driven through the same cases as a strategy, and judged by the checks a strategy is.
 */
import { CHECKS, type StrategyRef } from '../../../../strategies/contract.ts';
import type { ContractTarget } from '../../../contract/contract-target.ts';
import type { Scenario } from '../case/scenario.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { runTargetCases, targetRef, targetSection } from './black-box-suite.ts';
import { ExchangeLog } from './exchange-log.ts';
import { HttpBlackBox } from './http-black-box.ts';
import { preflightTarget } from './preflight.ts';

export const RESERVATION_TARGET: ContractTarget<StrategyRef, Scenario, CaseResult> = {
  checks: CHECKS,
  async connect(given) {
    const log = new ExchangeLog();
    const target = new HttpBlackBox(await preflightTarget(given, log), log);
    return {
      design: targetRef(target),
      run: (scenarios, cases) => runTargetCases(target, scenarios, cases),
      section: (cases) => targetSection(target, cases),
    };
  },
};
