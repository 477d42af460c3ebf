/**
 * Strategies by id, and loading a user's strategy from a module path. Worker threads import strategies
 * again by module URL, so every strategy is known by where it lives, not only by the object.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Strategy, StrategyRef } from '../../strategies/contract.ts';
import { Errors, HarnessError, oneLine } from '../errors.ts';
import { checkStrategy } from './strategy-module.ts';

const STRATEGIES = new URL('../../strategies/', import.meta.url);

/** Built-in strategies by id: the safe designs first, then the negative controls. */
const BUILT_IN = Object.fromEntries(
  Object.entries({
    'hot-row': 'hot-row.ts',
    'skip-locked-slots': 'skip-locked-slots.ts',
    'memory-quota': 'memory-quota.ts',
    'row-lock-count': 'row-lock-count.ts',
    'optimistic-cas': 'optimistic-cas.ts',
    serializable: 'serializable.ts',
    'check-then-act': 'controls/check-then-act.ts',
    'unconditional-expire': 'controls/unconditional-expire.ts',
    'split-tx-release': 'controls/split-tx-release.ts',
    'no-active-index': 'controls/no-active-index.ts',
    'memory-quota-config-restart': 'controls/memory-quota-config-restart.ts',
    'count-without-lock': 'controls/count-without-lock.ts',
    'cas-without-version': 'controls/cas-without-version.ts',
  }).map(([id, file]) => [id, new URL(file, STRATEGIES).href]),
) as Readonly<Record<string, string>>;

export const BUILT_IN_IDS = Object.keys(BUILT_IN);

export async function importStrategy(moduleUrl: string, shownAs = moduleUrl): Promise<Strategy> {
  const module: Record<string, unknown> = await import(moduleUrl);
  const candidate = module.default ?? module.strategy;
  if (candidate === undefined) {
    throw Errors.badInput(`${shownAs} has no default export (a strategy, see strategies/contract.ts)`);
  }
  const checked = checkStrategy(candidate);
  if ('problem' in checked) throw Errors.badInput(`${shownAs} is not a valid strategy: ${checked.problem}`);
  return checked.strategy;
}

function looksLikePath(name: string): boolean {
  return name.includes('/') || /\.(c|m)?[jt]s$/.test(name);
}

export async function loadStrategy(name: string): Promise<StrategyRef> {
  const builtIn = BUILT_IN[name];
  if (builtIn) return { strategy: await importStrategy(builtIn), moduleUrl: builtIn };
  if (!looksLikePath(name)) {
    throw Errors.badInput(
      `unknown strategy "${name}"; choose one of: ${BUILT_IN_IDS.join(', ')}, or a module path`,
    );
  }
  const file = resolve(name);
  if (!existsSync(file)) throw Errors.badInput(`strategy module not found: ${name}`);
  const moduleUrl = pathToFileURL(file).href;
  let strategy: Strategy;
  try {
    strategy = await importStrategy(moduleUrl, name);
  } catch (error: unknown) {
    if (error instanceof HarnessError) throw error;
    throw Errors.badInput(`cannot load strategy module ${name}: ${oneLine(error)}`);
  }
  return { strategy, moduleUrl };
}

export async function loadAllBuiltIn(): Promise<StrategyRef[]> {
  return Promise.all(BUILT_IN_IDS.map(loadStrategy));
}
