/**
 * How a crash child is started. Every kill needs a process of its own (dozens in a default run), and
 * through tsx most of a child's CPU went to starting tsx's loader and compiling its modules, on the 2 cores
 * the server needs. For a built-in design the child is one JavaScript file instead: child-run.ts with the
 * design bundled in by esbuild (the compiler tsx itself runs), built once per design and process, started
 * with plain `node` at a fraction of that cost. The bundle is the same code: each module's `import.meta.url` stays its
 * own file's (the designs read their SQL beside them), and its source map gives a stack in the .ts files.
 * A plug-in or a design in SQL goes through tsx and the registry (crash-child.ts), checked and guarded as in
 * the parent; so does every design when a bundle cannot be built here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownImportMetaUrl } from '../../bin/own-import-meta-url.js';
import {
  CHILD_FILES_PREFIX,
  removeOrphanedFiles,
  removeRunState,
  writeRunState,
} from '../database/run-state.ts';
import { isBuiltInModule } from '../registry/built-in-module.ts';
import { splitVariantUrl } from '../registry/strategy-variants.ts';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');
const RUN = fileURLToPath(new URL('./child-run.ts', import.meta.url));
const DESIGNS = fileURLToPath(new URL('./child-design.ts', import.meta.url));

/** Where this process keeps its bundles, made at the first and removed when it exits. */
let folder: string | undefined;
const bundles = new Map<string, Promise<string | undefined>>();

/**
 * The folder, named in a state file of its own: a process killed before its 'exit' leaves it, and the
 * next process to make one (or `reservebench clean`) removes it.
 */
function bundleFolder(): string {
  if (!folder) {
    removeOrphanedFiles();
    const made = mkdtempSync(join(tmpdir(), CHILD_FILES_PREFIX));
    const state = writeRunState({ pid: process.pid, startedAt: new Date().toISOString(), filesDir: made });
    process.once('exit', () => {
      rmSync(made, { recursive: true, force: true });
      removeRunState(state);
    });
    folder = made;
  }
  return folder;
}

/** The child's entry: the design imported as its module's default, handed to child-run.ts. */
function entryOf(designFile: string): string {
  return [
    `import design from ${JSON.stringify(designFile)};`,
    `import { runCrashChild } from ${JSON.stringify(RUN)};`,
    `import { bundledDesign } from ${JSON.stringify(DESIGNS)};`,
    'await runCrashChild(bundledDesign(design));',
  ].join('\n');
}

async function buildBundle(designFile: string, outfile: string): Promise<void> {
  const { build, transform } = await import('esbuild');
  await build({
    stdin: { contents: entryOf(designFile), resolveDir: bundleFolder(), loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    sourcemap: 'inline',
    logLevel: 'silent',
    // pg is CommonJS: its require() of Node's own modules needs a real require in an ES module.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    external: ['pg-native'],
    plugins: [ownImportMetaUrl(transform)],
  });
}

/** The design's bundle, built at its first crash; undefined when it could not be built here. */
function bundleFor(base: string): Promise<string | undefined> {
  let bundle = bundles.get(base);
  if (!bundle) {
    const made = bundles.size + 1;
    bundle = Promise.resolve()
      .then(async () => {
        const outfile = join(bundleFolder(), `child-${made}.mjs`);
        await buildBundle(fileURLToPath(base), outfile);
        return outfile;
      })
      .catch(() => undefined);
    bundles.set(base, bundle);
  }
  return bundle;
}

/** The arguments of `node` that start a crash child for the design at `moduleUrl`. */
export async function childArguments(moduleUrl: string): Promise<string[]> {
  const { base } = splitVariantUrl(moduleUrl);
  const bundle = isBuiltInModule(base) ? await bundleFor(base) : undefined;
  return bundle ? ['--enable-source-maps', bundle] : ['--import', TSX_LOADER, CHILD];
}
