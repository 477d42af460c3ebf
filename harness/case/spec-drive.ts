/**
 * One order of a contract's spec on a case's schema, on the interleaving engine, and the pause points the
 * order claims but did not reach. Only the listed order's claims are judged: any other order, or any order
 * of a spec the explorer wrote, is refused where it cannot run rather than waited out.
 */
import type { CaseConnection } from '../driver/case-connection.ts';
import { runPermutation } from '../interleaving/engine.ts';
import { isContractStep, type Permutation, type StepRecord } from '../interleaving/permutation.ts';
import type { CalledDesign } from '../interleaving/spec-verbs.ts';

/** Which order of the spec a case runs; `listed`: the order whose claims are judged. */
export interface SpecRun {
  permutation: Permutation;
  listed: boolean;
  timeoutMs: number;
}

/** One order of a spec, run: its records, and what its claims did not make happen. */
export interface SpecOrderRun {
  /** The records, in the order the engine sent the steps. */
  steps: StepRecord[];
  /** The listed order's pauses (`… UNTIL <point>`) that never reached their point; none for any other order. */
  notExercised: string[];
}

/** The order run; `explored`: the explorer wrote the spec (its orders, listed or not, are not held to their pauses). */
export async function runSpecOrder(
  connection: CaseConnection,
  contract: CalledDesign,
  explored: boolean,
  run: SpecRun,
): Promise<SpecOrderRun> {
  const steps = await runPermutation(run.permutation, {
    connectionString: connection.connectionString,
    schema: connection.schema,
    contract,
    timeoutMs: run.timeoutMs,
    rejectInvalid: !run.listed || explored,
  });
  const notExercised =
    run.listed && !explored ? pausesNotReached(run.permutation, steps, contract.verbs.contract) : [];
  return { steps, notExercised };
}

/**
 * Steps of the contract's verbs with UNTIL whose call ended without stopping at their point: the spec did
 * not drive what it says.
 */
function pausesNotReached(
  permutation: Permutation,
  steps: readonly StepRecord[],
  contract: string,
): string[] {
  return permutation.steps.flatMap((step) => {
    if (!isContractStep(step) || step.contract !== contract || !step.until) return [];
    const result = steps.find((r) => r.step === step.name)?.result;
    return result?.status === 'ok' && result.paused ? [] : [`${step.name} never reached ${step.until}`];
  });
}
