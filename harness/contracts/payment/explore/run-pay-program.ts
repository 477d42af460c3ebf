/**
 * One payment program of the explorer, run as a payment spec case (run-payment-case.ts): the design's
 * tables on a schema of their own, the PAY steps on the interleaving engine in the program's order, the
 * final read, the audit, the invariants and the history against the payment model (`linearizable`). The
 * design is judged as if it claimed to hold: a program that fails is a finding. A finding's spec is
 * replayed the same way from its file.
 */
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { ProgramRun } from '../../../contract/contract-explore.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import type { PaymentSpecScenario } from '../case/payment-scenario.ts';
import { paymentSpecFile } from '../case/payment-spec-file.ts';
import { runPaymentCase } from '../case/run-payment-case.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import { PAYMENT_VERBS } from '../spec/payment-verbs.ts';
import type { PaymentCaseResult } from '../verdict/payment-case-result.ts';
import { type PayProgram, paySpecText } from './pay-program.ts';

/** The spec as the explorer runs it: one order, its own, whatever `--permutations` says. */
function exploredScenario(text: string, file: string): PaymentSpecScenario {
  const scenario = paymentSpecFile(parseSpec(text, file, [PAYMENT_VERBS]), text, file);
  return { ...scenario, id: 'explore', explored: true };
}

const listedOnly = (settings: CaseSettings): CaseSettings => ({ ...settings, permutations: 'listed' });

function runOf(result: PaymentCaseResult, spec: string): ProgramRun<PaymentCaseResult> {
  if (result.status === 'pass' || result.status === 'fail') return { kind: result.status, result, spec };
  if (result.problems?.some((p) => p.includes('invalid permutation:'))) return { kind: 'invalid', spec };
  return { kind: 'broken', result, spec };
}

export async function runPayProgram(
  db: RunDatabase,
  ref: PaymentDesignRef,
  program: PayProgram,
  settings: CaseSettings,
  header: readonly string[],
): Promise<ProgramRun<PaymentCaseResult>> {
  const spec = paySpecText(program, header);
  const scenario = exploredScenario(spec, 'explored.spec');
  return runOf(await runPaymentCase(db, ref, scenario, listedOnly(settings)), spec);
}

export async function replayPaySpec(
  db: RunDatabase,
  ref: PaymentDesignRef,
  text: string,
  file: string,
  settings: CaseSettings,
  times: number,
): Promise<PaymentCaseResult[]> {
  const scenario = exploredScenario(text, file);
  const results: PaymentCaseResult[] = [];
  for (let i = 0; i < times; i++) results.push(await runPaymentCase(db, ref, scenario, listedOnly(settings)));
  return results;
}
