/**
 * `run --permutations all` for a case of any contract written as a spec: every other order of its steps
 * (each session's own order kept) is a case of its own on fresh tables, reported under the listed order's
 * `permutations`. A safe design's case fails when any valid order fails; a control's only the listed order
 * must catch. The first other order that fails a case the listed order did not fail keeps its tables, as a
 * failed listed order does.
 */
import type { CaseSettings } from '../contract/case-settings.ts';
import { InvalidPermutation } from '../interleaving/engine.ts';
import type { Permutation } from '../interleaving/permutation.ts';
import type { CaseResultBase, PermutationReport, ReportedStep } from '../verdict/case-result.ts';
import { orderOf } from './spec-orders.ts';

/** A case result that may report its orders: its recorded steps, and every order when all were run. */
type OrderedCase = CaseResultBase & { steps?: ReportedStep[]; permutations?: PermutationReport[] };

export function permutationReport(result: OrderedCase, permutation: Permutation): PermutationReport {
  return {
    order: orderOf(permutation),
    status: result.status === 'n/a' ? 'broken' : result.status,
    blocked: (result.steps ?? []).filter((s) => s.blocked).map((s) => s.step),
    outcomes: result.outcomes,
    ...(result.status === 'fail' || result.status === 'broken' ? { problems: result.problems ?? [] } : {}),
    ...(result.keptSchema ? { keptSchema: result.keptSchema } : {}),
  };
}

/** The listed order's result, failed when another valid order failed, with every order reported. */
export function withPermutations<C extends OrderedCase>(listed: C, permutations: PermutationReport[]): C {
  if (listed.status !== 'pass' && listed.status !== 'fail') return listed;
  const failed = permutations.filter((p) => p.status === 'fail' || p.status === 'broken');
  const problems = failed.map((p) => `permutation ${p.order}: ${(p.problems ?? []).join('; ')}`);
  const valid = permutations.filter((p) => p.status !== 'invalid').length;
  const note = ` (${valid} permutations, ${failed.length} failed, ${permutations.length - valid} invalid)`;
  const boundary = `${listed.boundary}${note}`;
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

/**
 * The listed order's case, then every other order's with `run(permutation, settings)` (each on fresh
 * tables, its tables kept only when it fails and no failing order's are kept yet); an order that cannot
 * go on is `invalid`. Only `--permutations all` runs the others, and not after a broken listed order.
 */
export async function inEveryOrder<C extends OrderedCase>(
  listed: { permutation: Permutation; result: C },
  others: () => readonly Permutation[],
  settings: CaseSettings,
  run: (permutation: Permutation, settings: CaseSettings) => Promise<C>,
): Promise<C> {
  const { result } = listed;
  if (settings.permutations === 'listed' || result.status === 'broken') return result;
  const reports = [permutationReport(result, listed.permutation)];
  // A failing order fails the case only where the design should hold; one failing order's tables show it.
  let keepNextFailure = settings.keepFailed && result.expect === 'hold' && result.status === 'pass';
  for (const permutation of others()) {
    const order = { ...settings, keepFailed: keepNextFailure, keepAll: false };
    let report: PermutationReport;
    try {
      report = permutationReport(await run(permutation, order), permutation);
    } catch (error: unknown) {
      if (!(error instanceof InvalidPermutation)) throw error;
      report = { order: orderOf(permutation), status: 'invalid', blocked: [error.waitingStep], outcomes: {} };
    }
    if (report.keptSchema) keepNextFailure = false;
    reports.push(report);
  }
  return withPermutations(result, reports);
}

/** A spec's listed order judged whole; with `--permutations all` every other order on fresh tables. */
export async function specInEveryOrder<C extends OrderedCase>(
  orders: { listed: Permutation; others: () => readonly Permutation[] },
  settings: CaseSettings,
  run: (permutation: Permutation, settings: CaseSettings, listed: boolean) => Promise<C>,
): Promise<C> {
  const inOrder = (permutation: Permutation, order: CaseSettings) =>
    run(permutation, order, permutation === orders.listed);
  return inEveryOrder(
    { permutation: orders.listed, result: await inOrder(orders.listed, settings) },
    orders.others,
    settings,
    inOrder,
  );
}
