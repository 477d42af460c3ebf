/**
 * The documentation a user reads lives in the repository and stays true to the code: the generated
 * reference matches what the harness runs, and no link in README.md or docs/ leaves the repository or
 * points at a file that is not there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REFERENCE_PATH, renderReference } from '../scripts/reference-doc.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Every `[text](target)` and `<a href="target">` in a Markdown file, without its #fragment. */
function linkTargets(markdown: string): string[] {
  const targets = [
    ...[...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? ''),
    ...[...markdown.matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? ''),
  ];
  return targets.map((t) => t.split('#')[0] ?? '').filter((t) => t !== '');
}

/** Links that leave the repository, point at nothing, or name the design notes outside it. */
function badLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const problems = /\.\.\/shared\b|DESIGN\.md/.test(text) ? ['mentions ../shared or DESIGN.md'] : [];
  for (const target of linkTargets(text)) {
    if (/^[a-z]+:/i.test(target)) {
      problems.push(`${target}: a link outside the repository`);
      continue;
    }
    const resolved = resolve(dirname(file), target);
    if (relative(root, resolved).startsWith('..')) problems.push(`${target}: leaves the repository`);
    else if (!existsSync(resolved)) problems.push(`${target}: no such file`);
  }
  return problems;
}

describe('documentation in the repository', () => {
  it('docs/reference.md is what `npm run docs` generates today', async () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(await renderReference());
  });

  it('README.md and docs/ link only to files inside the repository that exist', () => {
    const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
    const problems = files.flatMap((file) => badLinks(file).map((p) => `${relative(root, file)}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('the link check fails on a link out of the repository and on a missing file', () => {
    const probe = join(root, 'test', 'fixtures', 'docs', 'bad-links.md');
    expect(badLinks(probe)).toEqual([
      'mentions ../shared or DESIGN.md',
      '../../../../shared/DESIGN.md: leaves the repository',
      'https://example.com/x: a link outside the repository',
      'missing.md: no such file',
    ]);
  });
});
