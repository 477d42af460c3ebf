/** Carts and order requests written the way the order specs write them: `sku-a:2,sku-b:1`. */
import type { OrderLine, OrderRequest } from '../strategies/order/contract.ts';

export const cart = (text: string): OrderLine[] =>
  text.split(',').map((line) => {
    const [sku = '', qty = ''] = line.split(':');
    return { sku, qty: Number(qty) };
  });

export const request = (requestKey: string, user: string, lines: string, ttlMs = 60_000): OrderRequest => ({
  requestKey,
  user,
  lines: cart(lines),
  ttlMs,
});
