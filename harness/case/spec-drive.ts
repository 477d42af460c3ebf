/**
 * One order of a contract's spec on a case's schema, on the interleaving engine, and the pause points the
 * order claims but did not reach. Only the listed order's claims are judged: any other order, or any order
 * of a spec the explorer wrote, is refused where it cannot run rather than waited out.
 */
import type { CaseConnection } from '../driver/case-connection.ts';
import { runPermutation } from '../interleaving/engine.ts';
import type { ContractStep, Permutation, Step, StepRecord } from '../interleaving/permutation.ts';
import type { CalledDesign } from '../interleaving/spec-verbs.ts';

/** Which order of the spec a case runs; `listed`: the order whose claims are judged. */
export interface SpecRun {
  permutation: Permutation;
  listed: boolean;
  timeoutMs: number;
}

/** The run's records, in the order the engine sent the steps; `explored`: the explorer wrote the spec. */
export function runSpecOrder(
  connection: CaseConnection,
  contract: CalledDesign,
  explored: boolean,
  run: SpecRun,
): Promise<StepRecord[]> {
  return runPermutation(run.permutation, {
    connectionString: connection.connectionString,
    schema: connection.schema,
    contract,
    timeoutMs: run.timeoutMs,
    rejectInvalid: !run.listed || explored,
  });
}

/**
 * Steps with UNTIL (`stepOf`: the contract's own step, else undefined) whose call ended without stopping
 * at their point: the spec did not drive what it says.
 */
export function pausesNotReached(
  permutation: Permutation,
  steps: readonly StepRecord[],
  stepOf: (step: Step | undefined) => ContractStep | undefined,
): string[] {
  return permutation.steps.flatMap((listed) => {
    const step = stepOf(listed);
    if (!step?.until) return [];
    const result = steps.find((r) => r.step === step.name)?.result;
    return result?.status === 'ok' && result.paused ? [] : [`${step.name} never reached ${step.until}`];
  });
}
