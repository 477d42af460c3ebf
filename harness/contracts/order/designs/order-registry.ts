/**
 * The built-in order designs by id (safe designs first, then the negative controls), each checked when it
 * loads, and a user's module that declares `contract: 'order'`, checked the same way
 * (contract/module-designs.ts).
 */
import type { OrderDesign } from '../../../../strategies/order/contract.ts';
import { catalogDesigns, type DesignRef } from '../../../contract/module-designs.ts';
import { ORDER_CATALOG } from '../catalog.ts';
import { orderDesignSchema } from './order-module.ts';

export const ORDER_DESIGNS = catalogDesigns<OrderDesign>(
  ORDER_CATALOG,
  new URL('../../../../strategies/order/', import.meta.url),
  orderDesignSchema,
);

/** A loaded order design and the module it came from. */
export type OrderDesignRef = DesignRef<OrderDesign>;

export const {
  builtInIds: ORDER_DESIGN_IDS,
  load: loadOrderDesign,
  importDesign: importOrderDesign,
} = ORDER_DESIGNS;
