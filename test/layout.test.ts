/**
 * The layout shows the architecture: harness/ grouped by role, the scenario driver independent of the
 * bench, strategies independent of the harness, and no import cycle anywhere in the sources.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
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

const importsInto = (from: string, into: string) =>
  [...graph].flatMap(([file, targets]) =>
    file.startsWith(from) ? targets.filter((t) => t.startsWith(into)).map((t) => `${file} → ${t}`) : [],
  );

describe('layout', () => {
  it('has no import cycle', () => {
    expect(cycles().map((c) => c.join(' → '))).toEqual([]);
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
