/**
 * The command line as plain JavaScript, so that node starts it without tsx. Through tsx every start
 * compiled or fetched from its cache some 600 modules through its loader thread, about a second of CPU —
 * and the tests start the command hundreds of times, a run starts it again for each child. The bundle is
 * built by esbuild (the compiler tsx itself runs) from the sources as they are, at the first start after
 * any of them changed: its name is a hash of every file under harness/, strategies/ and fixtures/ (and
 * of the builder's own files), so an edited source is never run stale. It is a folder written under a
 * temporary name and renamed, so that starts at the same moment never read half of it.
 *
 * It is split where the sources import a module when first needed (a command's work, a design): each
 * such module is a file of its own, with the packages it imports, loaded only by a start that asks for
 * it — `--help` or a mistyped option reads neither PostgreSQL's client nor the report renderers.
 *
 * The bundle is the same code: each module's `import.meta.url` stays its own source file's (designs read
 * their SQL beside them, worker threads start from their entry files), the packages stay in node_modules,
 * and the built-in designs and scenarios, which the harness imports by URL, are in it under their source
 * URLs (harness/registry/source-import.ts). Where no bundle can be built or kept — a read-only install,
 * no esbuild — or when RESERVEBENCH_SOURCES is set, the command runs the sources through tsx as before.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ownImportMetaUrl } from './own-import-meta-url.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What the bundle is built from: a change to any file here is a new bundle. */
const SOURCE_FOLDERS = ['harness', 'strategies', 'fixtures'];
/** The folders whose modules the harness imports by URL (a design, a scenario). */
const IMPORTED_BY_URL = ['strategies', 'fixtures'];
/** How the bundle's entry hands its modules to harness/registry/source-import.ts (the same key there). */
export const BUNDLED_MODULES = Symbol.for('reservebench: bundled modules');
/** This file and its plugin: a change to how the bundle is built is a new bundle too. */
const BUILDERS = ['./cli-bundle.js', './own-import-meta-url.js'];
/** A bundle built this long ago for sources since changed is no longer started by anything. */
const STALE_MS = 60 * 60 * 1000;

/** The files under `folder` of `root`, relative to `root`, sorted, at every level. */
function filesUnder(root, folder) {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** A hash of every file's path and content under `folders` of `root`, and of the files that build it. */
export function sourceFingerprint(root = ROOT, folders = SOURCE_FOLDERS) {
  const hash = createHash('sha256');
  for (const file of folders.flatMap((folder) => filesUnder(root, folder)))
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  for (const builder of BUILDERS) hash.update(readFileSync(fileURLToPath(new URL(builder, import.meta.url))));
  return hash.digest('hex').slice(0, 16);
}

/** The source files the harness may import by URL, which the bundle carries under their URLs. */
export function bundledModuleFiles() {
  return IMPORTED_BY_URL.flatMap((folder) => filesUnder(ROOT, folder))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROOT, file));
}

/** The bundle's entry: the modules imported by URL, each loaded when first asked for, then the CLI. */
function entrySource() {
  const modules = bundledModuleFiles().map(
    (path) => `  [${JSON.stringify(pathToFileURL(path).href)}, () => import(${JSON.stringify(path)})],`,
  );
  return [
    `globalThis[Symbol.for(${JSON.stringify(BUNDLED_MODULES.description)})] = new Map([`,
    ...modules,
    ']);',
    `await import(${JSON.stringify(join(ROOT, 'harness/cli/cli.ts'))});`,
  ].join('\n');
}

/** The bundle's entry in its folder; the other files there are the modules it imports when needed. */
const ENTRY = 'cli.mjs';

/** Builds the bundle into `folder`: written beside it first, then renamed into place whole. */
async function buildBundle(folder) {
  const { build, transform } = await import('esbuild');
  const building = `${folder}.${process.pid}.tmp`;
  await build({
    stdin: { contents: entrySource(), resolveDir: ROOT, sourcefile: 'cli-bundle-entry.js', loader: 'js' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: building,
    entryNames: 'cli',
    outExtension: { '.js': '.mjs' },
    // Read only when asked for (RESERVEBENCH_DEBUG prints a stack in the .ts files).
    sourcemap: 'linked',
    logLevel: 'silent',
    plugins: [ownImportMetaUrl(transform)],
  });
  try {
    renameSync(building, folder);
  } catch (error) {
    // A start beside this one put the same bundle in place first.
    rmSync(building, { recursive: true, force: true });
    if (!statSync(join(folder, ENTRY), { throwIfNoEntry: false })) throw error;
  }
}

/** Removes the bundles of sources long since changed (one a start beside this one removed is gone). */
function removeStale(folder, current) {
  const now = Date.now();
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (name.startsWith(current) || !name.startsWith('cli-')) continue;
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && now - stat.mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** The bundle of the sources as they are now, built if need be; undefined where there can be none. */
export async function cliBundle() {
  if (process.env.RESERVEBENCH_SOURCES) return undefined;
  try {
    const folder = join(ROOT, 'node_modules', '.cache', 'reservebench');
    const name = `cli-${sourceFingerprint()}`;
    const entry = join(folder, name, ENTRY);
    if (!statSync(entry, { throwIfNoEntry: false })) {
      mkdirSync(folder, { recursive: true });
      await buildBundle(join(folder, name));
      removeStale(folder, name);
    }
    return pathToFileURL(entry).href;
  } catch {
    return undefined;
  }
}
