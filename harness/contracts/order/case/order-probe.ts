/**
 * The order contract's sell-what-remains probe, run: after the final read, on the case's own tables and the
 * harness's own connection, two orders per sku with keys and users of its own — exactly what `remaining`
 * said, then one unit more. The probe's orders are not the case's: they are in no history, no outcome count
 * and no observation. They stay in the case's tables after everything the final read saw (a kept schema
 * shows them by their key prefix, `ORDER_PROBE_KEY`). The case's deadline bounds it (run-order-case.ts). Its
 * verdict is verdict/order-sells-what-remains.ts's.
 */
import type { ClientBase } from 'pg';
import type { StockLine } from '../../../../strategies/contract.ts';
import type { OrderDesign, OrderLine } from '../../../../strategies/order/contract.ts';
import { oneLine } from '../../../errors.ts';
import { checkOrderAnswer } from '../designs/order-module.ts';
import type { OrderFinalRead } from '../order-final-read.ts';
import { type OrderSkuProbe, probeUnits } from '../verdict/order-sells-what-remains.ts';

/** Every key and user the probe sends starts with this: no case sends one like it. */
export const ORDER_PROBE_KEY = 'reservebench-probe';

/** A probe order outlives any case's expiry: nothing gives its units back while the probe counts. */
const PROBE_TTL_MS = 3_600_000;

/** One order of the probe's, on `db`: its outcome, or ERROR with why. */
async function probeOrder(
  db: ClientBase,
  design: Pick<OrderDesign, 'order'>,
  key: string,
  line: OrderLine,
): Promise<string> {
  const request = { requestKey: key, user: `${key}-user`, lines: [line], ttlMs: PROBE_TTL_MS };
  const ctx = { db, pause: async () => undefined, pausesAt: () => false };
  try {
    const checked = checkOrderAnswer(await design.order(ctx, request));
    return 'problem' in checked ? `ERROR (${checked.problem})` : checked.answer.outcome;
  } catch (error: unknown) {
    return `ERROR (${oneLine(error)})`;
  }
}

/** Every sku of the case probed in turn, on `db` (the harness's connection, on the case's schema). */
export async function probeOrderSales(
  db: ClientBase,
  design: Pick<OrderDesign, 'order'>,
  stock: readonly StockLine[],
  read: Pick<OrderFinalRead, 'skus'>,
): Promise<OrderSkuProbe[]> {
  const remaining = new Map([...read.skus].map(([sku, s]) => [sku, s.remaining]));
  const probes: OrderSkuProbe[] = [];
  for (const [i, { sku, remaining: said, ordered }] of probeUnits(stock, remaining).entries()) {
    const key = `${ORDER_PROBE_KEY}-${i + 1}`;
    const all = ordered > 0 ? await probeOrder(db, design, `${key}-all`, { sku, qty: ordered }) : undefined;
    const oneMore = await probeOrder(db, design, `${key}-one-more`, { sku, qty: 1 });
    probes.push({ sku, remaining: said, ordered, answers: { ...(all ? { all } : {}), oneMore } });
  }
  return probes;
}
