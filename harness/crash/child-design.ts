/**
 * The design a crash child runs, loaded as cheaply as the child can: a crash child is a new process for
 * every kill, and the registry it would otherwise load (the plug-in checks, zod, every design in SQL) made
 * up half of its start. A built-in design (a TypeScript module of this package's strategies/, checked
 * when the run resolved it) is imported as it is, or bundled in (child-bundle.ts, bundledDesign); a
 * plug-in or a design in SQL goes through its contract's registry (the order's `importer`), checked and
 * guarded as in the parent.
 */
import { isBuiltInModule } from '../registry/built-in-module.ts';
import { configured, type Knobbed, splitVariantUrl } from '../registry/strategy-variants.ts';
import type { ChildDesign } from './child-run.ts';
import type { CrashDesign } from './crash-order.ts';

/** A design as the child sees it: its id and its operations, with the knobs a variant's URL carries. */
interface Design extends Knobbed<Design> {
  [operation: string]: unknown;
}

export const childDesign: ChildDesign = async ({ moduleUrl, importer }: CrashDesign) => {
  const { base, values } = splitVariantUrl(moduleUrl);
  if (!isBuiltInModule(base)) {
    const registry = (await import(importer)) as { importDesign(url: string): Promise<unknown> };
    return (await registry.importDesign(moduleUrl)) as Design;
  }
  const design = ((await import(base)) as { default: Design }).default;
  return values ? configured(design, values) : design;
};

/**
 * The loader of a bundled child (child-bundle.ts): its one design, imported into the bundle, with the
 * knobs the order's module URL carries.
 */
export function bundledDesign(design: unknown): ChildDesign {
  return async ({ moduleUrl }) => {
    const values = splitVariantUrl(moduleUrl).values;
    return values ? configured(design as Design, values) : (design as Design);
  };
}
