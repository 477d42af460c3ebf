/**
 * Loading a design module of any contract: a built-in one as it is; a user's (a plug-in) probed in a worker
 * first, its `process.exit` guarded, compiled by tsx whatever its package, and refused in one line saying
 * where it failed to load. What it exports is its contract's to check (each contract's zod schema).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register as registerCommonJsHooks } from 'tsx/cjs/api';
import { Errors, HarnessError, oneLine } from '../errors.ts';
import { isBuiltInModule } from './built-in-module.ts';
import { probeLoading } from './load-probe.ts';
import { guardExitsOf } from './plugin-exit.ts';
import { importSource, withTsxHooks } from './source-import.ts';
import { codeFrames } from './stack-frames.ts';

/**
 * tsx compiles a TypeScript file outside a "type": "module" package to CommonJS. With only its ESM hooks
 * (what bin/ and the worker entries register), Node's require then reads the raw file, finds ESM syntax
 * and fails ("Cannot require() ES Module … in a cycle"). Its CommonJS hooks compile the file on that path
 * too, as `tsx file.ts` would; they are registered once, before the first plug-in loads.
 */
let commonJsHooks = false;

/** Imports a design's module, a plug-in's guarded. */
export function importDesignModule(moduleUrl: string, shownAs = moduleUrl): Promise<unknown> {
  if (!isBuiltInModule(moduleUrl)) {
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

/** The contract a module's default export says it implements (`contract`), if it says one (never throws). */
export function declaredContract(module: unknown): string | undefined {
  try {
    const exported = (module as { default?: { contract?: unknown } }).default;
    return typeof exported?.contract === 'string' ? exported.contract : undefined;
  } catch {
    return undefined;
  }
}
