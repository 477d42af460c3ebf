/**
 * The built-in payment designs by id (safe designs first, then the negative controls), each checked when
 * it loads, and a user's module that declares `contract: 'payment'`, checked the same way
 * (contract/module-designs.ts). A scenario names the contract it drives; the suite crosses payment
 * scenarios with these.
 */
import type { PaymentDesign } from '../../../../strategies/payment/contract.ts';
import { catalogDesigns, type DesignRef } from '../../../contract/module-designs.ts';
import { PAYMENT_CATALOG } from '../catalog.ts';
import { paymentDesignSchema } from './payment-module.ts';

export const PAYMENT_DESIGNS = catalogDesigns<PaymentDesign>(
  PAYMENT_CATALOG,
  new URL('../../../../strategies/payment/', import.meta.url),
  paymentDesignSchema,
);

/** A loaded payment design and the module it came from. */
export type PaymentDesignRef = DesignRef<PaymentDesign>;

export const {
  builtInIds: PAYMENT_DESIGN_IDS,
  load: loadPaymentDesign,
  importDesign: importPaymentDesign,
  withVariants: paymentVariants,
  loadAll: loadAllPaymentDesigns,
} = PAYMENT_DESIGNS;

/** Where a crash child loads a payment design that is not built in: this module's importDesign. */
export const PAYMENT_IMPORTER = import.meta.url;

/** A crash child's load of a plug-in payment design (crash/child-design.ts), checked as in the parent. */
export const importDesign = importPaymentDesign;
