/**
 * The order contract's operations as a history records them (harness/history/history.ts's
 * HistoryOperation takes them as its call and answer types): what was asked, and what was answered.
 */
import type {
  OrderLine,
  OrderOutcome,
  OrderRequest,
  OrderStatus,
} from '../../../strategies/order/contract.ts';
import type { ClockBounds } from '../../history/clock-bounds.ts';

export type OrderKeyStatus = OrderStatus | 'NOT_FOUND';

/** What an operation asked, per kind; `lines` is the harness's read of a key's lines. */
export type OrderCall =
  | { op: 'order'; request: OrderRequest }
  | { op: 'release' | 'status' | 'lines'; requestKey: string }
  | { op: 'expire' }
  | { op: 'remaining'; sku: string }
  /** The test hook: these orders' expiry lies in the past from now on. */
  | { op: 'backdate'; requestKeys: readonly string[] };

/** What it answered, per kind (`done` for backdate, which answers nothing). */
export type OrderAnswer =
  | { outcome: OrderOutcome; status?: OrderStatus | undefined; sku?: string | undefined }
  | { moved: boolean }
  | { orders: number; units: number }
  | { status: OrderKeyStatus }
  | { remaining: number }
  | { lines: readonly OrderLine[] }
  | { done: true };

/** The call as the model takes it: its history id and the database-clock bounds it ran within. */
export interface TimedOrderCall {
  id: number;
  call: OrderCall;
  db: ClockBounds;
}
