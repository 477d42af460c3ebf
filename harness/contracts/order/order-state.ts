/**
 * The state of the order contract's sequential model (order-model.ts): per request key its order (user,
 * cart, status, expiry), per sku its stock, and the quantity the HELD orders hold of each sku, kept up to
 * date as orders change.
 */
import type { OrderLine, OrderStatus } from '../../../strategies/order/contract.ts';
import type { ClockBounds } from '../../history/clock-bounds.ts';
import type { ModelState } from '../../history/search-model.ts';

export interface OrderRecord {
  user: string;
  /** Sorted by sku (code-point order), one line per sku. */
  cart: readonly OrderLine[];
  status: OrderStatus;
  /** `past`: the backdate hook moved it before any later clock. */
  expires: ClockBounds | 'past';
}

/** A key's order, or its removal (the undo of its first write). */
export interface OrderChange {
  key: string;
  record: OrderRecord | undefined;
}

export class OrderState implements ModelState<OrderChange> {
  private readonly orders = new Map<string, OrderRecord>();
  private readonly heldBySku = new Map<string, number>();

  constructor(readonly totals: ReadonlyMap<string, number>) {}

  record(key: string): OrderRecord | undefined {
    return this.orders.get(key);
  }

  /** What the sku has left: its stock less the lines of its HELD orders. */
  free(sku: string): number {
    return (this.totals.get(sku) ?? 0) - (this.heldBySku.get(sku) ?? 0);
  }

  /** Every HELD order, with its key. */
  *held(): Generator<[string, OrderRecord]> {
    for (const entry of this.orders) if (entry[1].status === 'HELD') yield entry;
  }

  apply(changes: readonly OrderChange[]): OrderChange[] {
    const undo: OrderChange[] = [];
    for (const { key, record } of changes) {
      const before = this.orders.get(key);
      undo.push({ key, record: before });
      this.hold(before, -1);
      this.hold(record, 1);
      if (record) this.orders.set(key, record);
      else this.orders.delete(key);
    }
    return undo.reverse();
  }

  /** Exact: every order as text, keys sorted. */
  fingerprint(): string {
    const keys = [...this.orders.keys()].sort();
    return JSON.stringify(keys.map((key) => [key, this.orders.get(key)]));
  }

  private hold(record: OrderRecord | undefined, sign: 1 | -1): void {
    if (record?.status !== 'HELD') return;
    for (const { sku, qty } of record.cart)
      this.heldBySku.set(sku, (this.heldBySku.get(sku) ?? 0) + sign * qty);
  }
}
