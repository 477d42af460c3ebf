/**
 * The layout shows the architecture: harness/ grouped by role, the scenario driver independent of the
 * bench, strategies independent of the harness, no import cycle anywhere in the sources, and no function
 * in them over MAX_FUNCTION_LINES (a longer one is split along its seams, not waved through).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const SOURCES = ['harness', 'strategies', 'scenarios', 'scripts', 'bin'];
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

const importsInto = (from: string, into: string) =>
  [...graph].flatMap(([file, targets]) =>
    file.startsWith(from) ? targets.filter((t) => t.startsWith(into)).map((t) => `${file} → ${t}`) : [],
  );

describe('layout', () => {
  it('has no import cycle', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(longFunctions()).toEqual([]);
  });

  it('keeps strategies free of the harness, and the scenario driver free of the bench', () => {
    expect(importsInto('strategies/', 'harness/')).toEqual([]);
    expect(importsInto('harness/driver/', 'harness/bench/')).toEqual([]);
  });

  it('groups harness/ into folders by role, with only the shared errors module at its top', () => {
    const top = readdirSync(join(ROOT, 'harness')).filter(
      (n) => !statSync(join(ROOT, 'harness', n)).isDirectory(),
    );
    expect(top).toEqual(['errors.ts']);
    const folders = readdirSync(join(ROOT, 'harness')).filter((n) =>
      statSync(join(ROOT, 'harness', n)).isDirectory(),
    );
    expect(folders.sort()).toEqual(
      [
        'bench',
        'cli',
        'crash',
        'database',
        'driver',
        'explore',
        'history',
        'http',
        'interleaving',
        'registry',
        'report',
        'scenario',
        'blackbox',
        'verdict',
      ].sort(),
    );
  });
});
