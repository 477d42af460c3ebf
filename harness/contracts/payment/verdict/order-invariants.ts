/**
 * The order flow's invariants across the two contracts (a reservation strategy and a payment design on
 * one schema, keyed by the order), each a pure function over the harness's own reads: the reservation
 * side through `status` and `remaining` (final-read.ts), the payment side through `paymentStatus` per key
 * (payment-final-read.ts). Per key, one payment and its one outbox row are the payment contract's own
 * checks (onePaymentPerKey, outboxMatchesPayment); these add what only the two sides together can say.
 */
import type { StockLine } from '../../../../strategies/contract.ts';
import type { FinalRead } from '../depends-on-reservation.ts';
import type { PaymentFinalRead } from './payment-final-read.ts';
import type { PaymentProblem } from './payment-invariants.ts';

/** The reservation side's reading: every order's status and the sku's remaining, with its stock. */
export interface OrdersRead {
  stock: StockLine;
  reservations: FinalRead;
}

const isActive = (status: string) => status === 'HELD' || status === 'CONFIRMED';

/** Units gone from the stock (total − remaining) must be the orders holding one (HELD or CONFIRMED). */
export function soldMatchesOrders(orders: OrdersRead): PaymentProblem[] {
  const { stock, reservations } = orders;
  const remaining = reservations.remaining.get(stock.sku);
  const active = [...reservations.statuses.values()].filter(isActive).length;
  const gone = remaining === undefined ? undefined : stock.total - remaining;
  if (gone === active) return [];
  return [
    {
      check: 'soldMatchesOrders',
      message: `soldMatchesOrders ${stock.sku}: ${gone ?? 'unknown'} unit(s) gone, ${active} order(s) hold one`,
    },
  ];
}

/** A payment under an order's key whose reservation is not CONFIRMED: paid for a unit it does not own. */
export function paidUnconfirmed(orders: OrdersRead, payments: PaymentFinalRead): PaymentProblem[] {
  const off = [...orders.reservations.statuses]
    .filter(([key, status]) => status !== 'CONFIRMED' && (payments.get(key)?.payments.length ?? 0) > 0)
    .map(([key, status]) => `${key} ${status}`);
  return off.length === 0
    ? []
    : [
        {
          check: 'paidUnconfirmed',
          message: `paidUnconfirmed ${off.length}: payments for orders not confirmed (${off.join(', ')})`,
        },
      ];
}

export function orderInvariantProblems(orders: OrdersRead, payments: PaymentFinalRead): PaymentProblem[] {
  return [...soldMatchesOrders(orders), ...paidUnconfirmed(orders, payments)];
}
