/**
 * A contract's designs when every one is a module, written once: the built-in ones by id, a user's module
 * that declares the contract by path, each checked against the contract's schema when it loads and refused
 * in one line (exit 2). A variant's knobs ride in its module URL's fragment (strategy-variants.ts), so a
 * worker thread or a crash child importing the URL builds the same variant.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ZodType } from 'zod';
import { Errors } from '../errors.ts';
import { builtInModules } from '../registry/built-in-module.ts';
import { checkDesignAgainst } from '../registry/design-check.ts';
import { declaredContract, importModulePath } from '../registry/design-module.ts';
import { looksLikePath } from '../registry/looks-like-path.ts';
import { importSource } from '../registry/source-import.ts';
import { isSqlDesignUrl } from '../registry/sql-design-url.ts';
import { configured, type Knobbed, splitVariantUrl, variantsOf } from '../registry/strategy-variants.ts';
import type { DesignBase, DesignCatalog } from './contract.ts';
import type { ContractCatalog } from './contract-catalog.ts';

/** A loaded design and the module it came from. */
export interface DesignRef<D> {
  design: D;
  moduleUrl: string;
}

/** What the contract says of its designs. */
export interface ModuleDesignsOf {
  /** The contract's id, as a user's module declares it (`contract: '<id>'`), and its noun in messages. */
  contract: string;
  /** The built-in designs' module URLs by id (built-in-module.ts), safe designs first, then the controls. */
  builtIn: Readonly<Record<string, string>>;
  /** The schema a design module's default export is checked against. */
  schema: ZodType;
}

/**
 * The contract's designs (Contract.designs: no design in SQL, so nothing read as a file or installed
 * first), and what its own code loads of them by name.
 */
export interface ModuleDesigns<D extends DesignBase>
  extends Omit<DesignCatalog<DesignRef<D>>, 'readsFile' | 'checkInstall' | 'importDesign'> {
  /**
   * The design a user's module path exports, or undefined when the path is no module of this contract
   * (another contract's, a design in SQL, a path that is not there: that contract's loader says why).
   */
  atPath(name: string): Promise<DesignRef<D> | undefined>;
  importDesign(moduleUrl: string): Promise<D>;
  loadAll(): Promise<DesignRef<D>[]>;
}

export function moduleDesigns<D extends DesignBase & Knobbed<D>>(of: ModuleDesignsOf): ModuleDesigns<D> {
  const builtInIds = Object.keys(of.builtIn);
  const checkedDesign = (module: unknown, moduleUrl: string, shownAs: string): DesignRef<D> => {
    const checked = checkDesignAgainst<D>(of.schema, (module as { default?: unknown }).default, of.contract);
    if ('problem' in checked) throw Errors.badInput(`${shownAs} ${checked.problem}`);
    return { design: checked.design, moduleUrl };
  };
  const importDesign = async (moduleUrl: string): Promise<D> => {
    const { base, values } = splitVariantUrl(moduleUrl);
    const { design } = checkedDesign(await importSource(base), base, base);
    return values ? configured(design, values) : design;
  };
  const atPath = async (name: string): Promise<DesignRef<D> | undefined> => {
    if (!looksLikePath(name)) return undefined;
    const file = resolve(name);
    if (!existsSync(file)) return undefined;
    const moduleUrl = pathToFileURL(file).href;
    if (isSqlDesignUrl(moduleUrl)) return undefined;
    const module = await importModulePath(name, moduleUrl);
    return declaredContract(module) === of.contract ? checkedDesign(module, moduleUrl, name) : undefined;
  };
  const load = async (name: string): Promise<DesignRef<D>> => {
    // Own keys only: a name such as `constructor` must not find Object's.
    const moduleUrl = Object.hasOwn(of.builtIn, name) ? of.builtIn[name] : undefined;
    if (moduleUrl) return { design: await importDesign(moduleUrl), moduleUrl };
    const found = await atPath(name);
    if (found) return found;
    throw Errors.badInput(`unknown ${of.contract} design "${name}"; choose one of: ${builtInIds.join(', ')}`);
  };
  return {
    builtInIds,
    schema: of.schema,
    load,
    atPath,
    importDesign,
    withVariants: (refs, sweep) =>
      variantsOf(
        refs,
        sweep,
        (r) => r.design,
        (design, moduleUrl) => ({ design, moduleUrl }),
      ),
    info: (ref) => ({ design: ref.design, moduleUrl: ref.moduleUrl }),
    loadAll: () => Promise.all(builtInIds.map(load)),
  };
}

/**
 * A contract's designs as its catalog lists them (contract-catalog.ts): the built-in ones are the catalog's
 * files under `folder`, a user's module declares the catalog's id.
 */
export function catalogDesigns<D extends DesignBase & Knobbed<D>>(
  catalog: ContractCatalog,
  folder: URL,
  schema: ZodType,
): ModuleDesigns<D> {
  return moduleDesigns<D>({
    contract: catalog.id,
    schema,
    builtIn: builtInModules(folder, catalog.builtInDesigns),
  });
}
