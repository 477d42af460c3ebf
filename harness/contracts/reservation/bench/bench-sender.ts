/**
 * Worker side of a reservation series (bench-design.ts): a client's request n reserves one unit of the
 * bench's sku with a fresh key and user (`client-n`), every time.
 */
import type { BenchSender } from '../../../contract/bench-series.ts';
import { importStrategy } from '../designs/registry.ts';

export const sender: BenchSender = async (moduleUrl, sku) => {
  const strategy = await importStrategy(moduleUrl);
  return async (ctx, client, n) => {
    const key = `${client}-${n}`;
    const request = { requestKey: `bench-${key}`, user: `bench-user-${key}`, sku, ttlMs: 60_000 };
    return (await strategy.reserve(ctx, request)).outcome;
  };
};
