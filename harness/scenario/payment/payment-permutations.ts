/**
 * `run --permutations all` for a payment spec, as permutations.ts does it for a reservation interleaving:
 * every other order of the spec's steps (each session's own order kept) is a case of its own on fresh
 * tables, reported under the listed order's `permutations`; a safe design's case fails when any valid
 * order fails, and for a control only the listed order must catch it. The first other order that fails a
 * case the listed order did not fail keeps its tables, as a failed listed order does.
 */
import { InvalidPermutation } from '../../interleaving/engine.ts';
import type { Permutation } from '../../interleaving/permutation.ts';
import type { PermutationReport } from '../../verdict/case-result.ts';
import type { PaymentCaseResult } from '../../verdict/payment-case-result.ts';

const orderOf = (permutation: Permutation) => permutation.steps.map((s) => s.name).join(' ');

export function paymentPermutationReport(
  result: PaymentCaseResult,
  permutation: Permutation,
): PermutationReport {
  return {
    order: orderOf(permutation),
    status: result.status === 'n/a' ? 'broken' : result.status,
    blocked: (result.steps ?? []).filter((s) => s.blocked).map((s) => s.step),
    outcomes: result.outcomes,
    ...(result.status === 'fail' || result.status === 'broken' ? { problems: result.problems ?? [] } : {}),
    ...(result.keptSchema ? { keptSchema: result.keptSchema } : {}),
  };
}

/** One more order's case, or `invalid` where a session's next step waits on idle sessions. */
export async function anotherOrder(
  permutation: Permutation,
  run: () => Promise<PaymentCaseResult>,
): Promise<PermutationReport> {
  try {
    return paymentPermutationReport(await run(), permutation);
  } catch (error: unknown) {
    if (!(error instanceof InvalidPermutation)) throw error;
    return { order: orderOf(permutation), status: 'invalid', blocked: [error.waitingStep], outcomes: {} };
  }
}

/** The listed order's result, failed when another valid order failed, with every order reported. */
export function withPaymentPermutations(
  listed: PaymentCaseResult,
  permutations: PermutationReport[],
): PaymentCaseResult {
  const failed = permutations.filter((p) => p.status === 'fail' || p.status === 'broken');
  const problems = failed.map((p) => `permutation ${p.order}: ${(p.problems ?? []).join('; ')}`);
  const valid = permutations.filter((p) => p.status !== 'invalid').length;
  const boundary = `${listed.boundary} (${valid} permutations, ${failed.length} failed, ${permutations.length - valid} invalid)`;
  if (problems.length === 0 || listed.expect === 'violate') return { ...listed, boundary, permutations };
  const keptSchema = listed.keptSchema ?? permutations.find((p) => p.keptSchema)?.keptSchema;
  return {
    ...listed,
    status: 'fail',
    problems: [...(listed.problems ?? []), ...problems],
    boundary,
    permutations,
    ...(keptSchema ? { keptSchema } : {}),
  };
}
