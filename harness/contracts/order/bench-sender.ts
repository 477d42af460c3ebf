/**
 * Worker side of an order series (bench.ts): a client's request n orders one unit of each bench sku under
 * its own key, the lines listed in an order that follows the client (even: one way, odd: the other).
 */
import type { OrderLine, OrderSessionContext } from '../../../strategies/order/contract.ts';
import type { BenchSender } from '../../contract/bench-series.ts';
import { SECOND_BENCH_SKU } from './bench.ts';
import { importOrderDesign } from './designs/order-registry.ts';

export const sender: BenchSender = async (moduleUrl, sku) => {
  const design = await importOrderDesign(moduleUrl);
  const cart: OrderLine[] = [
    { sku, qty: 1 },
    { sku: SECOND_BENCH_SKU, qty: 1 },
  ];
  const reversed = [...cart].reverse();
  return async (ctx, client, n) => {
    const request = {
      requestKey: `bench-order-${client}-${n}`,
      user: `bench-user-${client}`,
      lines: client % 2 === 0 ? cart : reversed,
      ttlMs: 600_000,
    };
    // The bench's context holds no pause point of any contract: an order's pause calls pass through it.
    const { outcome } = await design.order(ctx as unknown as OrderSessionContext, request);
    return outcome;
  };
};
