/**
 * The built-in payment designs by id (safe designs first, then the negative controls), each checked when
 * it loads. A scenario names the contract it drives; the suite crosses payment scenarios with these.
 */

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PaymentDesign } from '../../../../strategies/payment/contract.ts';
import { Errors } from '../../../errors.ts';
import { builtInModules } from '../../../registry/built-in-module.ts';
import { declaredContract, importModulePath, looksLikePath } from '../../../registry/design-module.ts';
import { importSource } from '../../../registry/source-import.ts';
import { isSqlDesignUrl } from '../../../registry/sql-design-url.ts';
import {
  configured,
  type ParamSweep,
  splitVariantUrl,
  variantsOf,
} from '../../../registry/strategy-variants.ts';
import { checkPaymentDesign } from './payment-module.ts';

const DESIGNS = new URL('../../../../strategies/payment/', import.meta.url);

const BUILT_IN_PAYMENT = builtInModules(DESIGNS, {
  'payment-on-conflict': 'on-conflict.ts',
  'payment-advisory-lock': 'advisory-lock.ts',
  'payment-serializable': 'serializable.ts',
  'payment-external-call-inside': 'controls/external-call-inside.ts',
  'payment-check-then-insert': 'controls/check-then-insert.ts',
  'payment-no-fingerprint': 'controls/no-fingerprint.ts',
  'payment-split-outbox': 'controls/split-outbox.ts',
  'payment-attempt-id-unique': 'controls/attempt-id-unique.ts',
  'payment-pending-cache': 'controls/pending-cache.ts',
});

export const PAYMENT_DESIGN_IDS = Object.keys(BUILT_IN_PAYMENT);

/** A loaded payment design and the module it came from. */
export interface PaymentDesignRef {
  design: PaymentDesign;
  moduleUrl: string;
}

export function isPaymentDesignId(name: string): boolean {
  return Object.hasOwn(BUILT_IN_PAYMENT, name);
}

/** A built-in payment design by id, or the payment design a module path exports. */
export async function loadPaymentDesign(name: string): Promise<PaymentDesignRef> {
  const moduleUrl = Object.hasOwn(BUILT_IN_PAYMENT, name) ? BUILT_IN_PAYMENT[name] : undefined;
  if (moduleUrl) return { design: await importPaymentDesign(moduleUrl), moduleUrl };
  const atPath = await paymentDesignAtPath(name);
  if (atPath) return atPath;
  throw Errors.badInput(`unknown payment design "${name}"; choose one of: ${PAYMENT_DESIGN_IDS.join(', ')}`);
}

/**
 * The payment design a user's module path exports, or undefined when the path is no module of the payment
 * contract (a reservation strategy, a design in SQL, a path that is not there: loadStrategy says why).
 */
export async function paymentDesignAtPath(name: string): Promise<PaymentDesignRef | undefined> {
  if (!looksLikePath(name)) return undefined;
  const file = resolve(name);
  if (!existsSync(file)) return undefined;
  const moduleUrl = pathToFileURL(file).href;
  if (isSqlDesignUrl(moduleUrl)) return undefined;
  const module = await importModulePath(name, moduleUrl);
  return declaredContract(module) === 'payment' ? checkedDesign(module, moduleUrl, name) : undefined;
}

function checkedDesign(module: unknown, moduleUrl: string, shownAs: string): PaymentDesignRef {
  const checked = checkPaymentDesign((module as { default?: unknown }).default);
  if ('problem' in checked) throw Errors.badInput(`${shownAs} ${checked.problem}`);
  return { design: checked.design, moduleUrl };
}

/**
 * The design a module URL names, checked; a variant's knobs ride in the URL's fragment
 * (strategy-variants.ts), so a worker thread or a crash child importing it builds the same variant.
 */
/** Where a crash child loads a payment design that is not built in: this module's importDesign. */
export const PAYMENT_IMPORTER = import.meta.url;

export async function importPaymentDesign(moduleUrl: string): Promise<PaymentDesign> {
  const { base, values } = splitVariantUrl(moduleUrl);
  const { design } = checkedDesign(await importSource(base), base, base);
  return values ? configured(design, values) : design;
}

/** The payment designs with the sweep's variants (`--param payment-….knob=v1,v2`). */
export function paymentVariants(refs: readonly PaymentDesignRef[], sweep: ParamSweep): PaymentDesignRef[] {
  return variantsOf(
    refs,
    sweep,
    (r) => r.design,
    (design, moduleUrl) => ({ design, moduleUrl }),
  );
}

export function loadAllPaymentDesigns(): Promise<PaymentDesignRef[]> {
  return Promise.all(PAYMENT_DESIGN_IDS.map(loadPaymentDesign));
}

/** A crash child's load of a plug-in payment design (crash/child-design.ts), checked as in the parent. */
export const importDesign = importPaymentDesign;
