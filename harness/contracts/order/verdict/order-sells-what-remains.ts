/**
 * The order contract's sell-what-remains probe, judged: the counterpart of the reservation contract's
 * (harness/contracts/reservation/verdict/sells-what-remains.ts). The design's `remaining(sku)` is checked
 * against what it sells, not against its own other reads: after the final read the harness orders, per
 * sku, exactly the units `remaining` said (never more than the stock the case loaded), which must be HELD,
 * then one unit more, which must be SOLD_OUT. A unit gone from stock that the design's reads still count
 * (a leak its derived accounting hides) is refused; a `remaining` that says less than it sells sells past
 * it. Pure functions over what the probe saw (case/order-probe.ts runs it).
 */
import type { StockLine } from '../../../../strategies/contract.ts';
import type { OrderCheckName } from '../../../../strategies/order/contract.ts';
import type { Problem } from '../../../verdict/judgement.ts';

/** One sku probed: what the design said remains, and its answers to the probe's two orders. */
export interface OrderSkuProbe {
  sku: string;
  /** remaining(sku) as the final read had it. */
  remaining: number;
  /** What the probe ordered first: remaining, within the stock loaded (none when remaining says none). */
  ordered: number;
  /** The answer to that order (absent when nothing was ordered), then to the one unit after it. */
  answers: { all?: string; oneMore: string };
}

/** Per sku, the units the probe orders first: what remains, never below none or above the stock given. */
export function probeUnits(stock: readonly StockLine[], remaining: ReadonlyMap<string, number>) {
  return stock.map(({ sku, total }) => {
    const said = remaining.get(sku) ?? 0;
    return { sku, remaining: said, ordered: Math.min(Math.max(0, said), total) };
  });
}

function probeProblem(p: OrderSkuProbe): string | undefined {
  const soldShort = p.ordered > 0 && p.answers.all !== 'HELD';
  const soldPast = p.answers.oneMore !== 'SOLD_OUT';
  const overstated = p.remaining > p.ordered;
  if (!soldShort && !soldPast && !overstated) return undefined;
  const first = p.ordered > 0 ? `an order of ${p.ordered} was answered ${p.answers.all}, ` : '';
  const beyond = overstated ? ` (more than the ${p.ordered} loaded)` : '';
  return `sellsWhatRemains: ${p.sku} remaining() ${p.remaining}${beyond}; ${first}one more unit ${p.answers.oneMore}`;
}

/** The probe's verdict: a sku whose remaining did not sell exactly, then refuse, fires the check. */
export function orderSellsProblems(probes: readonly OrderSkuProbe[]): Problem<OrderCheckName>[] {
  return probes.flatMap((p) => {
    const message = probeProblem(p);
    return message ? [{ check: 'sellsWhatRemains' as const, message }] : [];
  });
}
