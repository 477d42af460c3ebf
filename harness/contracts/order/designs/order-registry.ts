/**
 * The built-in order designs by id (safe designs first, then the negative controls), each checked when it
 * loads, and a user's module that declares `contract: 'order'`, checked the same way
 * (contract/module-designs.ts).
 */
import type { OrderDesign } from '../../../../strategies/order/contract.ts';
import { type DesignRef, moduleDesigns } from '../../../contract/module-designs.ts';
import { builtInModules } from '../../../registry/built-in-module.ts';
import { ORDER_CATALOG } from '../catalog.ts';
import { orderDesignSchema } from './order-module.ts';

export const ORDER_DESIGNS = moduleDesigns<OrderDesign>({
  contract: 'order',
  schema: orderDesignSchema,
  builtIn: builtInModules(
    new URL('../../../../strategies/order/', import.meta.url),
    ORDER_CATALOG.builtInDesigns,
  ),
});

/** A loaded order design and the module it came from. */
export type OrderDesignRef = DesignRef<OrderDesign>;

export const {
  builtInIds: ORDER_DESIGN_IDS,
  load: loadOrderDesign,
  importDesign: importOrderDesign,
} = ORDER_DESIGNS;
