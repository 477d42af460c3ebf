/**
 * The design a crash child runs, loaded as cheaply as the child can: a crash child is a new process for
 * every kill, and the registry it would otherwise load (the plug-in checks, zod, every design in SQL) made
 * up half of its start. A built-in design (a TypeScript module of this package's strategies/, checked
 * when the run resolved it) is imported as it is, or bundled in (child-bundle.ts, bundledDesigns); a
 * plug-in or a design in SQL goes through the registry, checked and guarded as in the parent.
 */
import type { Strategy } from '../../strategies/contract.ts';
import type { PaymentDesign } from '../../strategies/payment/contract.ts';
import { isBuiltInModule } from '../registry/built-in-module.ts';
import { configured, splitVariantUrl } from '../registry/strategy-variants.ts';
import type { ChildDesigns } from './child-run.ts';

export async function childStrategy(moduleUrl: string): Promise<Strategy> {
  const { base, values } = splitVariantUrl(moduleUrl);
  if (!isBuiltInModule(base)) return (await import('../registry/registry.ts')).importStrategy(moduleUrl);
  const strategy = ((await import(base)) as { default: Strategy }).default;
  return values ? configured(strategy, values) : strategy;
}

export async function childPaymentDesign(moduleUrl: string): Promise<PaymentDesign> {
  const { base, values } = splitVariantUrl(moduleUrl);
  if (!isBuiltInModule(base))
    return (await import('../registry/payment-registry.ts')).importPaymentDesign(moduleUrl);
  const design = ((await import(base)) as { default: PaymentDesign }).default;
  return values ? configured(design, values) : design;
}

/**
 * The loaders of a bundled child (child-bundle.ts): its one design, imported into the bundle, with the
 * knobs the order's module URL carries.
 */
export function bundledDesigns(design: unknown): ChildDesigns {
  const knobs = (moduleUrl: string) => splitVariantUrl(moduleUrl).values;
  return {
    async strategy(moduleUrl) {
      const values = knobs(moduleUrl);
      return values ? configured(design as Strategy, values) : (design as Strategy);
    },
    async paymentDesign(moduleUrl) {
      const values = knobs(moduleUrl);
      return values ? configured(design as PaymentDesign, values) : (design as PaymentDesign);
    },
  };
}
