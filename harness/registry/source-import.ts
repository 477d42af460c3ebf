/**
 * Importing a module by its file URL: a built-in design, a scenario, a user's plug-in. The command line
 * may run from a bundle of its sources (bin/cli-bundle.js), which carries the built-in designs and the
 * scenarios under their source URLs and starts without tsx: there, a URL it carries is taken from it (the
 * same module the rest of the bundle imports), and any other — a plug-in, a test's fixture — is imported
 * through tsx, whose hooks are registered at the first such import. Run from the sources (or in a worker
 * thread, whose entry registers them), tsx is there already and every URL is imported as it is.
 */
import { register } from 'tsx/esm/api';

type BundledModules = ReadonlyMap<string, () => Promise<unknown>>;

/** The key the bundle's entry (bin/cli-bundle.js) sets its modules under. */
export const BUNDLED_MODULES = Symbol.for('reservebench: bundled modules');
let tsxRegistered = false;

function bundledModules(): BundledModules | undefined {
  return (globalThis as { [BUNDLED_MODULES]?: BundledModules })[BUNDLED_MODULES];
}

/**
 * tsx's module hooks, registered now if the command runs from a bundle and has not yet: before tsx's
 * CommonJS hooks (registry.ts), as when the sources run, or a module outside a "type": "module" package
 * loads with its exports under `default` twice over.
 */
export function withTsxHooks(): void {
  if (tsxRegistered || !bundledModules()) return;
  register();
  tsxRegistered = true;
}

/**
 * What tsx makes of an `import()` in the code it compiles: a module it compiled to CommonJS (one outside a
 * "type": "module" package) comes back as its exports, not as `{ default: exports }`. The bundle's code
 * is compiled by esbuild, so its imports do the same here.
 */
function asTsxImports(namespace: Record<string, unknown>): unknown {
  const exported = namespace.default;
  return exported && typeof exported === 'object' && '__esModule' in exported ? exported : namespace;
}

export async function importSource(url: string): Promise<unknown> {
  const load = bundledModules()?.get(url);
  if (load) return load();
  withTsxHooks();
  return asTsxImports(await import(url));
}
