/**
 * Everything a run runs, as one list of work for its lanes: the reservation cases, the payment cases and
 * each design's exploration, in the order the report lists them; where each may run (its placement) and
 * the order they start in. One list, so that a payment case or an exploration that mostly waits (on an
 * external call, the database's clock, a killed child) runs beside the others instead of after them.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import { HARNESS_CONNECTIONS } from '../database/preflight.ts';
import type { PaymentDesignRef } from '../registry/payment-registry.ts';
import type { LanePlacement } from './case-lanes.ts';
import type { CaseSpec } from './case-spec.ts';
import { PAYMENT_SESSIONS, type PaymentScenario } from './payment/payment-scenario.ts';
import { runsAloneBecause } from './runs-alone.ts';

export type SuiteItem =
  | { kind: 'case'; spec: CaseSpec }
  /** `repetition`: `#n` for the n-th of `run --repeat`'s runs of the case, else empty. */
  | { kind: 'payment'; ref: PaymentDesignRef; scenario: PaymentScenario; repetition: string }
  /** `connections`: what one of the explorer's programs opens at most (the explorer's to say). */
  | { kind: 'explore'; ref: StrategyRef; connections: number };

/** The payment cases: every payment scenario against every payment design, `repeat` times each. */
export function paymentItems(
  payments: { designs: readonly PaymentDesignRef[]; scenarios: readonly PaymentScenario[] } | undefined,
  repeat: number,
): SuiteItem[] {
  const items: SuiteItem[] = [];
  for (const scenario of payments?.scenarios ?? []) {
    for (const ref of payments?.designs ?? []) {
      for (let n = 1; n <= repeat; n++)
        items.push({ kind: 'payment', ref, scenario, repetition: repeat > 1 ? `#${n}` : '' });
    }
  }
  return items;
}

export function placementOf(item: SuiteItem): LanePlacement {
  if (item.kind === 'case')
    return {
      alone: runsAloneBecause(item.spec.scenario),
      connections: (item.spec.scenario.connections ?? item.spec.params.clients) + HARNESS_CONNECTIONS,
    };
  if (item.kind === 'payment') {
    const { scenario } = item;
    const crashes = 'run' in scenario && scenario.crashesDatabase;
    return {
      alone: crashes ? 'it crashes and restarts the server every case shares' : undefined,
      connections: (scenario.sessions ?? PAYMENT_SESSIONS) + HARNESS_CONNECTIONS,
    };
  }
  return { alone: undefined, connections: item.connections + HARNESS_CONNECTIONS };
}

/**
 * The order the items start in: first the cases that run alone (they queue for a server of their own and
 * hold up nothing else), then the explorations, the longest work of a run — of a design that holds, every
 * program is run, where a negative control stops at its first finding —, then the payment cases (their
 * sessions mostly wait: on a held pay, an external call, a killed worker), then the reservation cases in
 * the report's order. Longest first, so that no long one starts last and runs on alone, and waiting work
 * beside the work that keeps the cores busy; from the items alone, the same on every machine.
 */
export function startOrder(items: readonly SuiteItem[]): number[] {
  const rank = (item: SuiteItem): number => {
    if (placementOf(item).alone !== undefined) return 0;
    if (item.kind === 'explore') return item.ref.strategy.expect === 'hold' ? 1 : 2;
    return item.kind === 'payment' ? 3 : 4;
  };
  const ranks = items.map(rank);
  return [...items.keys()].sort((a, b) => (ranks[a] ?? 0) - (ranks[b] ?? 0) || a - b);
}
