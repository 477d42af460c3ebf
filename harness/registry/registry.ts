/**
 * Strategies by id, and loading a user's strategy from a module path. Worker threads import strategies
 * again by module URL, so every strategy is known by where it lives, not only by the object.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register as registerCommonJsHooks } from 'tsx/cjs/api';
import type { Strategy, StrategyRef } from '../../strategies/contract.ts';
import { Errors, HarnessError, oneLine } from '../errors.ts';
import { probeLoading } from './load-probe.ts';
import { guardExitsOf } from './plugin-exit.ts';
import { importSource, withTsxHooks } from './source-import.ts';
import { isSqlDesignUrl, sqlDesignAt } from './sql-design.ts';
import { codeFrames } from './stack-frames.ts';
import { strategyFromModule } from './strategy-module.ts';
import { configured, splitVariantUrl } from './strategy-variants.ts';

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
    'frozen-ledger': 'frozen-ledger.ts',
    bucketed: 'bucketed.ts',
    coalesced: 'coalesced.ts',
    'check-then-act': 'controls/check-then-act.ts',
    'unconditional-expire': 'controls/unconditional-expire.ts',
    'split-tx-release': 'controls/split-tx-release.ts',
    'no-active-index': 'controls/no-active-index.ts',
    'memory-quota-config-restart': 'controls/memory-quota-config-restart.ts',
    'count-without-lock': 'controls/count-without-lock.ts',
    'cas-without-version': 'controls/cas-without-version.ts',
    'async-commit': 'controls/async-commit.ts',
    'release-frozen-only': 'controls/release-frozen-only.ts',
    'release-twice': 'controls/release-twice.ts',
    'bucketed-no-fallback': 'controls/bucketed-no-fallback.ts',
    'standby-stock-check': 'controls/standby-stock-check.ts',
    'take-before-claim': 'controls/take-before-claim.ts',
    'confirm-off-the-books': 'controls/confirm-off-the-books.ts',
    'give-up-releases-claim': 'controls/give-up-releases-claim.ts',
  }).map(([id, file]) => [id, new URL(file, STRATEGIES).href]),
) as Readonly<Record<string, string>>;

export const BUILT_IN_IDS = Object.keys(BUILT_IN);

/** A built-in strategy's module file, by id. */
export function builtInFile(id: string): string | undefined {
  return Object.hasOwn(BUILT_IN, id) ? fileURLToPath(BUILT_IN[id] ?? '') : undefined;
}
const BUILT_IN_URLS = new Set(Object.values(BUILT_IN));

/**
 * tsx compiles a TypeScript file outside a "type": "module" package to CommonJS. With only its ESM hooks
 * (what bin/ and the worker entries register), Node's require then reads the raw file, finds ESM syntax
 * and fails ("Cannot require() ES Module … in a cycle"). Its CommonJS hooks compile the file on that path
 * too, as `tsx file.ts` would; they are registered once, before the first plug-in loads.
 */
let commonJsHooks = false;

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

/** Imports a design's module (a reservation strategy or a payment design), a plug-in's guarded. */
export function importDesignModule(moduleUrl: string, shownAs = moduleUrl): Promise<unknown> {
  if (!BUILT_IN_URLS.has(moduleUrl)) {
    withTsxHooks();
    if (!commonJsHooks) registerCommonJsHooks();
    commonJsHooks = true;
    guardExitsOf(moduleUrl, shownAs);
  }
  return importSource(moduleUrl);
}

/**
 * Where a module failed to load, in one line. esbuild (tsx) puts `file:line:column` (column from 0) on
 * its message's second line; V8 gives a SyntaxError in an ES module no position at all, so `node --check`
 * is asked for it; an exception thrown while the module ran is placed by its stack frame in the file.
 */
function loadFailure(error: unknown, file: string): string {
  const message = error instanceof Error ? error.message : '';
  const esbuild = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  if (esbuild) return `${esbuild[1]}:${esbuild[2]}:${Number(esbuild[3]) + 1}: ${esbuild[4]}`;
  const syntaxAt = error instanceof SyntaxError ? syntaxErrorAt(file) : undefined;
  if (syntaxAt) return `${syntaxAt}: ${oneLine(error)}`;
  const thrownAt = frameIn(error, file);
  return thrownAt ? `${oneLine(error)} (at ${thrownAt})` : oneLine(error);
}

function syntaxErrorAt(file: string): string | undefined {
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
  // "<file>:<line>", the source line, then a caret under the column.
  const [where, , caret] = (check.stderr ?? '').split('\n');
  const line = /^(.+):(\d+)$/.exec(where ?? '');
  const column = caret?.indexOf('^') ?? -1;
  return line && column >= 0 ? `${line[1]}:${line[2]}:${column + 1}` : undefined;
}

function frameIn(error: unknown, file: string): string | undefined {
  const url = pathToFileURL(file).href;
  return codeFrames(error instanceof Error ? (error.stack ?? '') : '').find((frame) => frame.url === url)?.at;
}

export function looksLikePath(name: string): boolean {
  return name.includes('/') || /\.((c|m)?[jt]s|sql)$/.test(name);
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
  if (declaresPaymentContract(module)) {
    throw Errors.badInput(`${name} is a payment design (contract: 'payment'), not a reservation strategy`);
  }
  const checked = strategyFromModule(module);
  if ('problem' in checked) throw Errors.badInput(`${name} ${checked.problem}`);
  return { strategy: checked.strategy, moduleUrl };
}

/**
 * A user's module, probed in a worker first and then imported, or a one-line refusal saying where it
 * failed to load. What it exports is the caller's to check.
 */
export async function importModulePath(name: string, moduleUrl: string): Promise<unknown> {
  // Guarded first, so that the probe's thread can end the run too when the module calls process.exit.
  guardExitsOf(moduleUrl, name);
  await probeLoading(moduleUrl, name);
  try {
    return await importDesignModule(moduleUrl, name);
  } catch (error: unknown) {
    if (error instanceof HarnessError) throw error;
    let why: string;
    try {
      why = loadFailure(error, fileURLToPath(moduleUrl));
    } catch {
      // A module may throw anything, even a value that cannot be turned into text.
      why = 'it threw a value that cannot be shown';
    }
    throw Errors.badInput(`cannot load strategy module ${name}: ${why}`);
  }
}

/** Whether a module's default export says it implements the payment contract (never throws). */
export function declaresPaymentContract(module: unknown): boolean {
  try {
    const exported = (module as { default?: { contract?: unknown } }).default;
    return exported?.contract === 'payment';
  } catch {
    return false;
  }
}

export async function loadAllBuiltIn(): Promise<StrategyRef[]> {
  return Promise.all(BUILT_IN_IDS.map(loadStrategy));
}
