/**
 * The sell-what-remains probe, judged. After the final read the harness tries to sell, per sku, exactly
 * what `remaining(sku)` said, with keys and users of its own, node by node (a node sells until it answers
 * anything but HELD, the next one is asked for what is still due): a design must sell exactly that many
 * and then answer SOLD_OUT on every node. A unit gone from stock that no hold explains, while `remaining`
 * is derived from the holds (a leak derived accounting hides), sells short; a `remaining` that says more
 * than the design can sell (phantom stock) sells short; one that says less sells past it. A disabled sku
 * must sell nothing, whatever `remaining` says. These are pure functions over what the probe saw
 * (harness/scenario/probe-remaining.ts runs it).
 */
import type { StockLine } from '../../strategies/contract.ts';
import type { OutcomeCounts, SkuProbe } from './case-result.ts';
import type { Problem } from './expectations.ts';

/**
 * The most units the probe sells of one sku: past it, it checks that these sell and stops, without the
 * SOLD_OUT that would show the end (only db-crash and db-crash-async, 1000 units each, leave more; selling
 * all of it would cost the default run a tenth of its time).
 */
export const PROBE_UNITS_AT_MOST = 100;

/** What the probe must sell of one sku. */
export interface ProbeTarget {
  sku: string;
  /** remaining(sku) as the final read had it (what the design says it would still sell). */
  remaining: number;
  total: number;
  /** An administrator disabled the sku during the case: nothing may sell, whatever remaining says. */
  disabled: boolean;
}

/** What the probe saw on one node: its answers in order (it stops at the first that is not HELD). */
export interface NodeSale {
  node: string;
  outcomes: readonly string[];
  /** The first failure's message, when a request failed (ERROR). */
  error?: string;
}

export function probeTargets(
  stock: readonly StockLine[],
  remaining: ReadonlyMap<string, number>,
  disabled: ReadonlySet<string> | undefined,
): ProbeTarget[] {
  return stock.map((line) => ({
    sku: line.sku,
    remaining: remaining.get(line.sku) ?? 0,
    total: line.total,
    disabled: disabled?.has(line.sku) ?? false,
  }));
}

/** The units due from a target: none when disabled, never fewer than none. */
export const unitsDue = (target: ProbeTarget) => (target.disabled ? 0 : Math.max(0, target.remaining));

/** What the probe sells at most of a target: what is due, within the stock given and the probe's cap. */
const probedUnits = (target: ProbeTarget) => Math.min(unitsDue(target), target.total, PROBE_UNITS_AT_MOST);

const isCapped = (target: ProbeTarget) => Math.min(unitsDue(target), target.total) > PROBE_UNITS_AT_MOST;

/**
 * How many requests the next node is sent: what is still due, and one more to see it refuse (none more
 * when the probe is capped). Never more than the stock given to setup allows, so a design that says it
 * has more than it was given (or never refuses) cannot keep the probe going.
 */
export function requestsForNextNode(target: ProbeTarget, soldSoFar: number): number {
  return Math.max(0, probedUnits(target) - soldSoFar) + (isCapped(target) ? 0 : 1);
}

/** One sku's probe, from each node's answers. */
export function skuProbe(target: ProbeTarget, sales: readonly NodeSale[]): SkuProbe {
  const answers: OutcomeCounts = {};
  for (const sale of sales)
    for (const outcome of sale.outcomes) answers[outcome] = (answers[outcome] ?? 0) + 1;
  const sold = answers.HELD ?? 0;
  const odd = sales.find((s) => {
    const last = s.outcomes.at(-1);
    return last !== undefined && last !== 'HELD' && last !== 'SOLD_OUT';
  });
  const last = odd?.outcomes.at(-1);
  return {
    sku: target.sku,
    expected: unitsDue(target),
    sold,
    answers,
    ...(target.disabled ? { disabled: true as const } : {}),
    ...(isCapped(target) ? { capped: PROBE_UNITS_AT_MOST } : {}),
    ...(odd && last
      ? { refusedBy: `${odd.node} answered ${last}${odd.error ? ` (${odd.error})` : ''}` }
      : {}),
  };
}

/** The probe's verdict: a sku that did not sell exactly what was due, then refuse, fires the check. */
export function sellsWhatRemainsProblems(probes: readonly SkuProbe[]): Problem[] {
  return probes
    .filter((p) => p.sold !== (p.capped ?? p.expected) || p.refusedBy)
    .map((p) => {
      const due = p.disabled ? 'disabled: 0 due' : `remaining() ${p.expected}`;
      const why = `${p.capped ? ` of the ${p.capped} probed` : ''}${p.refusedBy ? `; ${p.refusedBy}` : ''}`;
      return {
        check: 'sellsWhatRemains',
        message: `sellsWhatRemains: ${p.sku} ${due}, sold ${p.sold}${why}`,
      };
    });
}
