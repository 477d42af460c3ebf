/**
 * The built-in order designs by id (safe designs first, then the negative controls), each checked when it
 * loads, and a user's module that declares `contract: 'order'`, checked the same way.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OrderDesign } from '../../../../strategies/order/contract.ts';
import { Errors } from '../../../errors.ts';
import { builtInModules } from '../../../registry/built-in-module.ts';
import { declaredContract, importModulePath, looksLikePath } from '../../../registry/design-module.ts';
import { importSource } from '../../../registry/source-import.ts';
import {
  configured,
  type ParamSweep,
  splitVariantUrl,
  variantsOf,
} from '../../../registry/strategy-variants.ts';
import { checkOrderDesign } from './order-module.ts';

const DESIGNS = new URL('../../../../strategies/order/', import.meta.url);

const BUILT_IN_ORDER = builtInModules(DESIGNS, {
  'order-sku-order': 'sku-order.ts',
  'order-serializable': 'serializable.ts',
  'order-frozen-ledger': 'frozen-ledger.ts',
  'order-request-order': 'controls/request-order.ts',
  'order-line-per-transaction': 'controls/line-per-transaction.ts',
  'order-read-then-subtract': 'controls/read-then-subtract.ts',
  'order-expire-off-the-books': 'controls/expire-off-the-books.ts',
});

export const ORDER_DESIGN_IDS = Object.keys(BUILT_IN_ORDER);

/** A loaded order design and the module it came from. */
export interface OrderDesignRef {
  design: OrderDesign;
  moduleUrl: string;
}

function checkedDesign(module: unknown, moduleUrl: string, shownAs: string): OrderDesignRef {
  const checked = checkOrderDesign((module as { default?: unknown }).default);
  if ('problem' in checked) throw Errors.badInput(`${shownAs} ${checked.problem}`);
  return { design: checked.design, moduleUrl };
}

/** The design a module URL names, checked, with the knobs its fragment carries (strategy-variants.ts). */
export async function importOrderDesign(moduleUrl: string): Promise<OrderDesign> {
  const { base, values } = splitVariantUrl(moduleUrl);
  const { design } = checkedDesign(await importSource(base), base, base);
  return values ? configured(design, values) : design;
}

/** The order design a module path exports, or undefined when the path is no module of the order contract. */
async function orderDesignAtPath(name: string): Promise<OrderDesignRef | undefined> {
  if (!looksLikePath(name)) return undefined;
  const file = resolve(name);
  if (!existsSync(file)) return undefined;
  const moduleUrl = pathToFileURL(file).href;
  const module = await importModulePath(name, moduleUrl);
  return declaredContract(module) === 'order' ? checkedDesign(module, moduleUrl, name) : undefined;
}

/** A built-in order design by id, or the order design a module path exports; one line (exit 2) otherwise. */
export async function loadOrderDesign(name: string): Promise<OrderDesignRef> {
  const moduleUrl = Object.hasOwn(BUILT_IN_ORDER, name) ? BUILT_IN_ORDER[name] : undefined;
  if (moduleUrl) return { design: await importOrderDesign(moduleUrl), moduleUrl };
  const atPath = await orderDesignAtPath(name);
  if (atPath) return atPath;
  throw Errors.badInput(`unknown order design "${name}"; choose one of: ${ORDER_DESIGN_IDS.join(', ')}`);
}

/** The order designs with the sweep's variants (`--param order-….knob=v1,v2`). */
export function orderVariants(refs: readonly OrderDesignRef[], sweep: ParamSweep): OrderDesignRef[] {
  return variantsOf(
    refs,
    sweep,
    (r) => r.design,
    (design, moduleUrl) => ({ design, moduleUrl }),
  );
}
