/**
 * The built-in order designs by id (safe designs first, then the negative controls), each checked when it
 * loads, and a user's module that declares `contract: 'order'`, checked the same way
 * (contract/module-designs.ts).
 */
import type { OrderDesign } from '../../../../strategies/order/contract.ts';
import { type DesignRef, moduleDesigns } from '../../../contract/module-designs.ts';
import { builtInModules } from '../../../registry/built-in-module.ts';
import { orderDesignSchema } from './order-module.ts';

export const ORDER_DESIGNS = moduleDesigns<OrderDesign>({
  contract: 'order',
  schema: orderDesignSchema,
  builtIn: builtInModules(new URL('../../../../strategies/order/', import.meta.url), {
    'order-sku-order': 'sku-order.ts',
    'order-serializable': 'serializable.ts',
    'order-frozen-ledger': 'frozen-ledger.ts',
    'order-request-order': 'controls/request-order.ts',
    'order-line-per-transaction': 'controls/line-per-transaction.ts',
    'order-read-then-subtract': 'controls/read-then-subtract.ts',
    'order-expire-off-the-books': 'controls/expire-off-the-books.ts',
  }),
});

/** A loaded order design and the module it came from. */
export type OrderDesignRef = DesignRef<OrderDesign>;

export const {
  builtInIds: ORDER_DESIGN_IDS,
  load: loadOrderDesign,
  importDesign: importOrderDesign,
} = ORDER_DESIGNS;
