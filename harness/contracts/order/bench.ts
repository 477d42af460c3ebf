/**
 * An order design's bench series: every client orders two-line carts of the bench's two skus, one unit of
 * each, even clients listing them one way and odd clients the other (overlapping carts in opposite order,
 * the deadlock drill's shape), each request under a key of its own. Throughput counts HELD answers (carts
 * held); the audit is the harness's: each sku's remaining, read through the design, plus the quantities of
 * the HELD orders the design's audit lists, is its stock, HELD answers are the HELD orders, and no sku holds
 * more than its stock.
 */
import { refusedNeed } from '../../case/applicability.ts';
import { BENCH_SKU, type DesignSeries } from '../../contract/bench-series.ts';
import type { ContractBench } from '../../contract/contract.ts';
import type { OrderDesignRef } from './designs/order-registry.ts';

const SENDER = new URL('./bench-sender.ts', import.meta.url).href;

/** The bench's second sku, beside BENCH_SKU. */
export const SECOND_BENCH_SKU = 'sku-bench-02';

function orderSeries({ design }: OrderDesignRef): DesignSeries {
  const stockOf = (stock: number) => [
    { sku: BENCH_SKU, total: stock },
    { sku: SECOND_BENCH_SKU, total: stock },
  ];
  return {
    counted: 'HELD',
    sender: SENDER,
    refusal: (db) => refusedNeed(design.needs ?? [], db.capabilities),
    setup: (db, stock) => design.setup(db, stockOf(stock)),
    audit: async (db, stock, totals) => {
      const audit = await design.audit(db);
      const problems: string[] = [];
      let drift = 0;
      let oversold = 0;
      for (const { sku } of stockOf(stock)) {
        const remaining = await design.remaining(db, sku);
        const held = audit.skus.find((s) => s.sku === sku)?.held ?? 0;
        drift += Math.abs(stock - remaining - held);
        oversold += Math.max(0, held - stock);
      }
      if (audit.heldKeys.length !== totals.counted)
        problems.push(`${totals.counted} HELD answers, but the design holds ${audit.heldKeys.length} orders`);
      if (audit.partialOrders > 0) problems.push(`${audit.partialOrders} partial orders`);
      return { drift, oversold, problems };
    },
  };
}

/** The order contract's bench series (ContractBench). */
export const ORDER_BENCH = {
  unit: 'carts/s',
  shortUnit: 'cart/s',
  note: [
    'Throughput is HELD answers (two-line carts held) per second in the measured window. Every client orders',
    'one unit of each of two skus under keys of its own, even clients listing them one way and odd clients',
    'the other; latency per request in ms (HDR histogram),',
  ],
  ok: 'every series ran, held whole carts only and oversold nothing',
  design: orderSeries,
} satisfies ContractBench<OrderDesignRef>;
