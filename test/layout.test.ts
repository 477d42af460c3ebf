/**
 * The layout shows the architecture: harness/ grouped by role in folders that import only downwards, the
 * scenario driver independent of the bench, strategies independent of the harness, no import cycle
 * anywhere in the sources, and no function
 * in them over MAX_FUNCTION_LINES (a longer one is split along its seams, not waved through).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const SOURCES = ['harness', 'strategies', 'fixtures', 'scripts', 'bin'];
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) ? [path] : [];
  });
}

const graph = new Map<string, string[]>(
  SOURCES.flatMap(sourceFiles).map((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1] ?? '')));
    return [file, targets.filter((t) => /\.(ts|js)$/.test(t))];
  }),
);

function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

const MAX_FUNCTION_LINES = 80;

/** Every function, method and arrow function of the sources longer than MAX_FUNCTION_LINES. */
function longFunctions(): string[] {
  const long: string[] = [];
  for (const file of graph.keys()) {
    const source = ts.createSourceFile(
      file,
      readFileSync(join(ROOT, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
        if (lines > MAX_FUNCTION_LINES) long.push(`${file}:${first + 1} (${lines} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long;
}

/**
 * harness/'s folders, lowest first. Each may import only the folders before it (and harness/'s top-level
 * modules, strategies/): the order the design is read in, from the database up to the command line. A
 * type two folders share lives in the lower one.
 */
const FOLDER_ORDER = [
  'database',
  'cluster',
  'gate',
  'registry',
  'driver',
  'history',
  'interleaving',
  'crash',
  'verdict',
  'contract',
  'case',
  'suite',
  'explore',
  'contracts',
  'bench',
  'report',
  'cli',
] as const;

const folderOf = (file: string): string | undefined => {
  const [top, folder, ...rest] = file.split('/');
  return top === 'harness' && rest.length > 0 ? folder : undefined;
};

/** Imports from a harness folder into one the order puts above it (or into an undeclared folder). */
function upwardImports(imports: ReadonlyMap<string, readonly string[]>): string[] {
  const rank = (folder: string) => FOLDER_ORDER.indexOf(folder as (typeof FOLDER_ORDER)[number]);
  return [...imports].flatMap(([file, targets]) => {
    const from = folderOf(file);
    if (from === undefined) return [];
    return targets
      .filter((target) => {
        const to = folderOf(target);
        return to !== undefined && to !== from && (rank(to) < 0 || rank(from) < 0 || rank(to) > rank(from));
      })
      .map((target) => `${file} → ${target}`);
  });
}

const importsInto = (from: string, into: string) =>
  [...graph].flatMap(([file, targets]) =>
    file.startsWith(from) ? targets.filter((t) => t.startsWith(into)).map((t) => `${file} → ${t}`) : [],
  );

/** Where `file`'s static imports lead, transitively (a dynamic `import()` is loaded only when it runs). */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/^import\s[^;]*?from\s+'(\.{1,2}\/[^']+\.ts)'/gms)) {
    const target = normalize(join(dirname(file), m[1] ?? ''));
    if (!seen.has(target)) {
      seen.add(target);
      staticClosure(target, seen);
    }
  }
  return seen;
}

describe('layout', () => {
  it('has no import cycle', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
  });

  it('imports harness folders only downwards, in the declared order (so no two import each other)', () => {
    expect(upwardImports(graph)).toEqual([]);
    // The check catches a back-import: the driver reaching up into the command line.
    const backImport = new Map([['harness/driver/barrier.ts', ['harness/cli/cli-arguments.ts']]]);
    expect(upwardImports(backImport)).toEqual(['harness/driver/barrier.ts → harness/cli/cli-arguments.ts']);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(longFunctions()).toEqual([]);
  });

  it('keeps strategies free of the harness, and the scenario driver free of the bench', () => {
    expect(importsInto('strategies/', 'harness/')).toEqual([]);
    expect(importsInto('harness/driver/', 'harness/bench/')).toEqual([]);
  });

  it('groups harness/ into the declared folders, with only the process-wide modules at its top', () => {
    const top = readdirSync(join(ROOT, 'harness')).filter(
      (n) => !statSync(join(ROOT, 'harness', n)).isDirectory(),
    );
    expect(top.sort()).toEqual(['errors.ts', 'interrupted.ts']);
    const folders = readdirSync(join(ROOT, 'harness')).filter((n) =>
      statSync(join(ROOT, 'harness', n)).isDirectory(),
    );
    expect(folders.sort()).toEqual([...FOLDER_ORDER].sort());
  });

  it('has the top level the design card names: fixtures/ per contract, reports/ with its examples', () => {
    const top = readdirSync(ROOT);
    for (const name of [
      'package.json',
      'tsconfig.json',
      'strategies',
      'harness',
      'fixtures',
      'reports',
      'scripts',
    ])
      expect(top, name).toContain(name);
    expect(top.filter((n) => ['scenarios', 'specs'].includes(n))).toEqual([]);
    // Each contract's scenarios (and specs) in its own folder, named as the contract is.
    const contracts = readdirSync(join(ROOT, 'harness', 'contracts')).filter((n) =>
      statSync(join(ROOT, 'harness', 'contracts', n)).isDirectory(),
    );
    for (const contract of contracts)
      expect(readdirSync(join(ROOT, 'fixtures', contract)), contract).toContain('scenarios');
    expect(readdirSync(join(ROOT, 'reports'))).toEqual(expect.arrayContaining(['README.md', 'examples']));
  });

  it('keeps the bench a runner: its tables, charts and files are drawn with the other reports', () => {
    expect(importsInto('harness/bench/', 'harness/report/')).toEqual([]);
  });

  it('starts a crash child without the registry: it loads a built-in design as it is (child-design.ts)', () => {
    const loaded = [...staticClosure('harness/crash/crash-child.ts')];
    expect(loaded.filter((f) => f.startsWith('harness/registry/')).sort()).toEqual([
      'harness/registry/built-in-module.ts',
      'harness/registry/strategy-variants.ts',
    ]);
  });
});
