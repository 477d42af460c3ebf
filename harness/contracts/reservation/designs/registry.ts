/**
 * Strategies by id, and loading a user's strategy from a module path. Worker threads import strategies
 * again by module URL, so every strategy is known by where it lives, not only by the object.
 */

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Strategy, StrategyRef } from '../../../../strategies/contract.ts';
import { Errors } from '../../../errors.ts';
import { builtInModules } from '../../../registry/built-in-module.ts';
import { declaredContract, importDesignModule, importModulePath } from '../../../registry/design-module.ts';
import { looksLikePath } from '../../../registry/looks-like-path.ts';
import { isSqlDesignUrl } from '../../../registry/sql-design-url.ts';
import { strategyFromModule } from '../../../registry/strategy-module.ts';
import { configured, splitVariantUrl } from '../../../registry/strategy-variants.ts';
import { RESERVATION_CATALOG } from '../catalog.ts';
import { sqlDesignAt } from './sql-design.ts';

const STRATEGIES = new URL('../../../../strategies/', import.meta.url);

/** Built-in strategies by id, in the catalog's order. */
const BUILT_IN = builtInModules(STRATEGIES, RESERVATION_CATALOG.builtInDesigns);

export const BUILT_IN_IDS = Object.keys(BUILT_IN);

/** A built-in strategy's module file, by id. */
export function builtInFile(id: string): string | undefined {
  return Object.hasOwn(BUILT_IN, id) ? fileURLToPath(BUILT_IN[id] ?? '') : undefined;
}

/** Where a crash child loads a strategy that is not built in: this module's importDesign. */
export const STRATEGY_IMPORTER = import.meta.url;

/** A crash child's load of a plug-in strategy (crash/child-design.ts), checked as in the parent. */
export const importDesign = (moduleUrl: string): Promise<Strategy> => importStrategy(moduleUrl);
export async function importStrategy(moduleUrl: string, shownAs = moduleUrl): Promise<Strategy> {
  // A variant's knobs ride in the URL's fragment (strategy-variants.ts): the module is the design's own.
  const { base, values } = splitVariantUrl(moduleUrl);
  // A design in SQL is its file: read again and adapted in every thread that loads it.
  if (isSqlDesignUrl(base)) {
    const design = sqlDesignAt(base, shownAs);
    return values ? configured(design, values) : design;
  }
  const checked = strategyFromModule(await importDesignModule(base, shownAs));
  if ('problem' in checked) throw Errors.badInput(`${shownAs} ${checked.problem}`);
  return values ? configured(checked.strategy, values) : checked.strategy;
}

export async function loadStrategy(name: string): Promise<StrategyRef> {
  // Own keys only: `--strategy constructor` must not find Object's.
  const builtIn = Object.hasOwn(BUILT_IN, name) ? BUILT_IN[name] : undefined;
  if (builtIn) return { strategy: await importStrategy(builtIn), moduleUrl: builtIn };
  if (!looksLikePath(name)) {
    throw Errors.badInput(
      `unknown strategy "${name}"; choose one of: ${BUILT_IN_IDS.join(', ')}, or a module path`,
    );
  }
  const file = resolve(name);
  if (!existsSync(file)) throw Errors.badInput(`strategy module not found: ${name}`);
  const moduleUrl = pathToFileURL(file).href;
  if (isSqlDesignUrl(moduleUrl)) return { strategy: sqlDesignAt(moduleUrl, name), moduleUrl };
  const module = await importModulePath(name, moduleUrl);
  const declared = declaredContract(module);
  if (declared !== undefined && declared !== 'reservation') {
    throw Errors.badInput(
      `${name} is a ${declared} design (contract: '${declared}'), not a reservation strategy`,
    );
  }
  const checked = strategyFromModule(module);
  if ('problem' in checked) throw Errors.badInput(`${name} ${checked.problem}`);
  return { strategy: checked.strategy, moduleUrl };
}

export async function loadAllBuiltIn(): Promise<StrategyRef[]> {
  return Promise.all(BUILT_IN_IDS.map(loadStrategy));
}
