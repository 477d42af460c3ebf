/**
 * A scenario written as an isolation spec, in the orders a case runs it: the one permutation it lists (the
 * one judged, its blocking included), and, for `run --permutations all`, every other order of its steps
 * that keeps each session's own order.
 */
import { allPermutations } from '../interleaving/all-permutations.ts';
import type { Permutation } from '../interleaving/permutation.ts';
import { parseSpec } from '../interleaving/spec-parser.ts';
import type { SpecVerbs } from '../interleaving/spec-verbs.ts';

export interface SpecOrders {
  listed: Permutation;
  /** Computed when first asked (`--permutations all`): a long spec's orders are too many to list. */
  others(): Permutation[];
}

/** The order a permutation sends its steps in, as the report names it. */
export const orderOf = (permutation: Permutation): string => permutation.steps.map((s) => s.name).join(' ');

/** The spec's listed order and every other; one line naming `file` when it lists none or several. */
export function specOrders(text: string, file: string, verbs: readonly SpecVerbs[]): SpecOrders {
  const spec = parseSpec(text, file, verbs);
  const [listed, ...more] = spec.permutations;
  if (!listed || more.length > 0)
    throw new Error(`${file}: its spec must list exactly one permutation (the one judged)`);
  const sessions = spec.sessions.map((s) => ({ name: s.name, steps: s.steps.map((t) => t.step) }));
  let others: Permutation[] | undefined;
  return {
    listed,
    others: () => {
      others ??= [...allPermutations(sessions)].filter((p) => orderOf(p) !== orderOf(listed));
      return others;
    },
  };
}
